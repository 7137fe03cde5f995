// Permanent-ID requests as the metadata service answers them (backends.md §3.7), and as the gateway
// reads them to show each request's folder.

/** What every view of a request names: the request, its type and what it is for. */
export interface RequestSummary {
  id: string;
  type: string;
  target_id: string;
  target_type: string;
  requested_by: string;
  original_path?: string;
}

/** A row of the listings: the summary with the first and latest status. */
export interface RequestListing extends RequestSummary {
  date_submitted: number;
  status: string;
  date_updated: number;
  updated_by: string;
}

export interface StatusEntry {
  status: string;
  comments?: string;
  status_date: number;
  updated_by: string;
}

export interface RequestDetails extends RequestSummary {
  permanent_id?: string;
  history: StatusEntry[];
}
