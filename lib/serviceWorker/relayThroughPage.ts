/// <reference lib="webworker" />
import { PortInbox } from '../client/preview/portInbox';
import { ResponsePartSchema, type ResponsePart } from '../protocol/previewBridge';

/** The body as a stream that asks the page for one piece at a time, so a long video is never read ahead. */
function bodyStream(inbox: PortInbox<ResponsePart>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        inbox.port.postMessage({ type: 'pull' });
        const part = await inbox.next();
        if (part?.type === 'body') controller.enqueue(new Uint8Array(part.bytes));
        else if (part?.type === 'end') {
          controller.close();
          inbox.close();
        } else {
          controller.error(
            new Error(
              part?.type === 'fail' ? `The page could not read it (${part.code}).` : 'The page stopped answering.',
            ),
          );
          inbox.close();
        }
      },
      cancel() {
        inbox.port.postMessage({ type: 'cancel' });
        inbox.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Answers a fetch through a page of this origin (PRV-5 for previews, FILE-13 for media): the
 * request goes to `page` with a port of its own, the page answers a head and then one body piece
 * per pull. `headers` are added to every answer; `missing` answers when the page says nothing.
 */
export async function relayThroughPage(
  page: Client,
  message: { method: 'GET' | 'HEAD' },
  headers: Record<string, string>,
  headTimeoutMs: number,
  missing: () => Response,
): Promise<Response> {
  const channel = new MessageChannel();
  const inbox = new PortInbox(channel.port1, ResponsePartSchema);
  page.postMessage(message, [channel.port2]);
  const head = await inbox.next(headTimeoutMs);
  if (head?.type !== 'head') {
    inbox.close();
    return head?.type === 'fail' ? Response.error() : missing();
  }
  const answerHeaders: Record<string, string> = { ...head.headers, ...headers };
  if (!answerHeaders['content-type']) answerHeaders['content-type'] = 'application/octet-stream';
  if (message.method === 'HEAD' || head.status === 204 || head.status === 304) {
    // Drain the page's `end` so its port closes.
    inbox.port.postMessage({ type: 'pull' });
    void inbox.next(headTimeoutMs).then(() => inbox.close());
    return new Response(null, { status: head.status, headers: answerHeaders });
  }
  return new Response(bodyStream(inbox), { status: head.status, headers: answerHeaders });
}
