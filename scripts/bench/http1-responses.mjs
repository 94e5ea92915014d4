// The response framing the load generators share: bytes of one keep-alive socket in, each whole
// HTTP/1.1 response's head out (read by its status line and Content-Length, the body skipped).
const HEADER_END = Buffer.from('\r\n\r\n');

/** A `data` handler calling `onResponse(head)` once per complete response, in order. */
export function responseReader(onResponse) {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const headerEnd = pending.indexOf(HEADER_END);
      if (headerEnd < 0) return;
      const head = pending.toString('latin1', 0, headerEnd);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      const end = headerEnd + HEADER_END.length + length;
      if (pending.length < end) return;
      pending = pending.subarray(end);
      onResponse(head);
    }
  };
}
