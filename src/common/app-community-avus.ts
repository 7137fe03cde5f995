// How an app is tagged with a community: an AVU on the app (target type `app`) with this attribute
// and the community's name as its value. backends.md §3.3 says community tags are AVUs on apps
// without naming the attribute; this is the upstream apps service's default, which the web UI sends, shared by the apps service
// (listing a community's apps, tagging) and the groups service (re-tagging on a rename).
export const communityAvuAttribute = 'cyverse-community';
