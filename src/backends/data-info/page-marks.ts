/**
 * Where the paged listing's pages of a folder began and ended: for a page at a deep offset, the
 * database walks the folder's index from its first child up to the offset (offsets are what the
 * clients send), about 0.1 µs a child on SQLite and 0.2 on PostgreSQL, so the middle page of a
 * folder of 100,000 took 4.6 and 10.7 ms and the last 11 and 25 ms against 1.6 and 2.9 for the
 * first (bench/README.md, "Data at scale"). A mark is the sort keys of the child at one position;
 * a later page at or after that position starts there (`keys ≥ the mark's`, a range on the same
 * index) and walks only the rest. Marks come free with the pages served — the first and last
 * child of each — so the next page, the same page again and the pages around one seen all start
 * close by; a jump into a region no page has visited yet walks from the nearest mark before it.
 *
 * A mark holds only while the folder's children of that type keep their order:
 * `data_folder_counts.version` (migration 036) changes with every insert, delete, move, rename,
 * or change of date or size among them, and marks are kept per version, the version read in the
 * same statement as the page they came from.
 */

import { LRUCache } from 'lru-cache';

/** The sort keys of the child at `position` (0-based, within the folder's children of one type in one order). */
export interface PageMark {
  position: number;
  keys: unknown[];
}

interface Marked {
  version: string;
  /** By position, ascending. */
  marks: PageMark[];
  /** The same marks in the order they were learned (the oldest dropped first). */
  learned: PageMark[];
}

/** Listings remembered (folder, type, order), least recently used dropped first. */
const MAX_LISTINGS = 256;
/** Marks kept per listing: a few pages' worth of starts and ends; the oldest learned dropped first. */
const MAX_MARKS = 32;

export class PageMarks {
  private readonly listings = new LRUCache<string, Marked>({ max: MAX_LISTINGS });

  /** The mark nearest before or at `offset` in `listing` at `version`, if any is known. */
  nearest(listing: string, version: string, offset: number): PageMark | undefined {
    const marked = this.listings.get(listing);
    if (!marked || marked.version !== version) return undefined;
    let found: PageMark | undefined;
    for (const mark of marked.marks) {
      if (mark.position > offset) break;
      found = mark;
    }
    return found;
  }

  /** Remembers `marks` of `listing` as read at `version`; marks of any other version are dropped. */
  learn(listing: string, version: string, marks: PageMark[]): void {
    let marked = this.listings.get(listing);
    if (!marked || marked.version !== version) {
      marked = { version, marks: [], learned: [] };
      this.listings.set(listing, marked);
    }
    for (const mark of marks) {
      const at = marked.marks.findIndex((known) => known.position >= mark.position);
      if (at !== -1 && marked.marks[at]!.position === mark.position) continue;
      marked.marks.splice(at === -1 ? marked.marks.length : at, 0, mark);
      marked.learned.push(mark);
      if (marked.learned.length > MAX_MARKS) {
        const oldest = marked.learned.shift()!;
        marked.marks.splice(marked.marks.indexOf(oldest), 1);
      }
    }
  }
}
