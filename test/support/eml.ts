// A small reader of the RFC 822 messages the email service writes or sends, for the support
// tests: unfolded headers, and the text of a single-part message (7bit, quoted-printable or base64).

export interface ParsedMail {
  headers: Map<string, string>;
  text: string;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export function parseEml(raw: string | Buffer): ParsedMail {
  const source = raw.toString();
  const split = source.indexOf('\r\n\r\n');
  if (split < 0) throw new Error('no blank line between headers and body');
  const headers = new Map<string, string>();
  for (const line of source
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`not a header line: ${line}`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = source.slice(split + 4);
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n') };
}
