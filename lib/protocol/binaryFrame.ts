/**
 * Binary answers (an addition to protocol v1): a read called with `transfer: "binary"` is
 * answered by one binary WebSocket frame instead of a text frame, so the bytes cross without
 * base64 or JSON on either side:
 *
 *   uint32 big-endian H | H bytes: the JSON-RPC response as UTF-8, with `dataBase64: ""` | the bytes
 *
 * Errors are still ordinary text frames.
 */
export const BINARY_HEADER_LENGTH_BYTES = 4;

export interface DecodedBinaryFrame {
  header: unknown;
  data: Uint8Array;
}

export function decodeBinaryFrame(frame: Uint8Array): DecodedBinaryFrame {
  if (frame.length < BINARY_HEADER_LENGTH_BYTES) throw new Error('binary frame too short');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const headerLength = view.getUint32(0);
  const end = BINARY_HEADER_LENGTH_BYTES + headerLength;
  if (end > frame.length) throw new Error('binary frame header overruns the frame');
  const header: unknown = JSON.parse(new TextDecoder().decode(frame.subarray(BINARY_HEADER_LENGTH_BYTES, end)));
  return { header, data: frame.subarray(end) };
}
