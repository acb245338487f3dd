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
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(frame.subarray(BINARY_HEADER_LENGTH_BYTES, end)));
  } catch {
    throw new Error('binary frame header is not JSON');
  }
  return { header, data: frame.subarray(end) };
}

/**
 * The same layout from the client's side (ATT-1): a request whose bytes follow it raw, for the
 * methods in BINARY_REQUEST_METHODS. One copy of the bytes, no base64.
 */
export function encodeBinaryFrame(header: unknown, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const frame = new Uint8Array(BINARY_HEADER_LENGTH_BYTES + headerBytes.length + data.length);
  new DataView(frame.buffer).setUint32(0, headerBytes.length);
  frame.set(headerBytes, BINARY_HEADER_LENGTH_BYTES);
  frame.set(data, BINARY_HEADER_LENGTH_BYTES + headerBytes.length);
  return frame;
}
