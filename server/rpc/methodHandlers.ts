import type { MethodName, MethodParamsParsed, MethodResult } from '../../lib/protocol/methods';
import { PROTOCOL_VERSION } from '../../lib/protocol/version';
import type { Identity } from '../auth/tokens';
import { RuntimeError } from '../runtime/errors';
import type { Runtime } from '../runtime/runtime';
import { BinaryFramePool, type BinaryReply } from './binaryReply';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../lib/protocol/version';

export const SERVER_VERSION = '0.1.0';

/** What a handler knows about the socket that called it. */
export interface CallContext {
  identity: Identity | null;
  /** The app origin, for links the runtime hands out. */
  appOrigin: string;
  authenticate(identity: Identity): void;
}

type Answer<M extends MethodName> = MethodResult<M> | (MethodResult<M> extends { dataBase64: string } ? BinaryReply : never);
type Handler<M extends MethodName> = (params: MethodParamsParsed<M>, ctx: CallContext) => Answer<M> | Promise<Answer<M>>;
export type MethodHandlers = { [M in MethodName]: Handler<M> };

export const pairingUrl = (appOrigin: string, code: string) => `${appOrigin}/pair#code=${encodeURIComponent(code)}`;

/** Protocol v1 over the runtime: params arrive validated, results leave typed (RPC-4). */
export function createMethodHandlers(runtime: Runtime): MethodHandlers {
  const outputFrames = new BinaryFramePool(MAX_COMMAND_OUTPUT_RANGE_BYTES);
  return {
    'auth.hello'(params, ctx) {
      if (params.protocolVersion !== PROTOCOL_VERSION) {
        throw new RuntimeError(
          'invalid_params',
          `Protocol version mismatch: this client speaks version ${params.protocolVersion}, the runtime speaks version ${PROTOCOL_VERSION}.`,
          { serverProtocolVersion: PROTOCOL_VERSION, clientProtocolVersion: params.protocolVersion },
        );
      }
      const identity = runtime.auth.authenticate(params.token);
      if (!identity) throw new RuntimeError('unauthorized', 'This token is not valid. Pair this device again.');
      ctx.authenticate(identity);
      return { protocolVersion: PROTOCOL_VERSION, serverVersion: SERVER_VERSION, deviceId: identity.deviceId };
    },
    'pair.redeem'(params) {
      const redeemed = runtime.auth.redeem(params.code, params.deviceName);
      if (!redeemed) throw new RuntimeError('unauthorized', 'This pairing code is wrong, used or expired. Ask the computer for a new one.');
      return redeemed;
    },
    'pair.create'(_params, ctx) {
      const { code, expiresAt } = runtime.auth.createPairingCode();
      return { code, expiresAt, url: pairingUrl(ctx.appOrigin, code) };
    },
    'devices.list'(_params, ctx) {
      return { devices: runtime.auth.devices(ctx.identity?.deviceId ?? null) };
    },
    'devices.revoke'(params) {
      runtime.revokeDevice(params.deviceId);
      return {};
    },
    'projects.list'() {
      return { projects: runtime.projects };
    },
    'sessions.create'(params) {
      return { session: runtime.createSession(params.projectId, params.agent, params.title, params.claudeSessionId) };
    },
    'agents.list'() {
      return { agents: runtime.listAgents() };
    },
    'approvals.list'(params) {
      return { approvals: runtime.pendingApprovals(params.sessionId) };
    },
    'approvals.answer'(params) {
      return { approval: runtime.answerApproval(params.sessionId, params.approvalId, params.decision) };
    },
    'sessions.list'(params) {
      return { sessions: runtime.listSessions(params?.projectId) };
    },
    'sessions.timeline'(params) {
      return { rows: runtime.timeline(params.sessionId) };
    },
    async 'sessions.delete'(params) {
      await runtime.deleteSession(params.sessionId);
      return {};
    },
    'chat.send'(params) {
      return runtime.chatSend(params.sessionId, params.operationId, params.text);
    },
    'run.cancel'(params) {
      runtime.cancelRun(params.sessionId, params.runId);
      return {};
    },
    'run.chatCommandOutputRead'(params) {
      if (runtime.isHistoryOutput(params.runId, params.commandId)) return readHistoryOutput(runtime, params, outputFrames);
      // Both transfers read into a pooled frame; base64 encodes from it and hands it back at once.
      const reply = outputFrames.reserve(params.length);
      let result;
      try {
        const range = runtime.readCommandOutput(
          params.appSessionId, params.runId, params.commandId, params.generation, params.offset, params.length, (n) => reply.data(n),
        );
        result = {
          offset: range.offset,
          dataBase64: params.transfer === 'binary' ? '' : range.bytes.toString('base64'),
          byteCount: range.bytes.length,
          availableBytes: range.availableBytes,
          generation: range.generation,
          complete: range.complete,
          sourceIncomplete: range.sourceIncomplete,
        };
      } catch (error) {
        reply.release();
        throw error;
      }
      if (params.transfer === 'binary') return reply.complete(result);
      reply.release();
      return result;
    },
    // Each of these is built in its own change (files, preview, web); until then they answer clearly.
    'files.list'() {
      throw notBuiltYet('files.list');
    },
    'files.readContent'() {
      throw notBuiltYet('files.readContent');
    },
    'files.readBinary'() {
      throw notBuiltYet('files.readBinary');
    },
    'preview.open'() {
      throw notBuiltYet('preview.open');
    },
    'files.readHtmlPreviewResource'() {
      throw notBuiltYet('files.readHtmlPreviewResource');
    },
    'web.fetchPage'() {
      throw notBuiltYet('web.fetchPage');
    },
  };
}

/** OUT-7: output only the agent's history holds, read through the agent, in either transfer. */
async function readHistoryOutput(
  runtime: Runtime,
  params: MethodParamsParsed<'run.chatCommandOutputRead'>,
  frames: BinaryFramePool,
): Promise<Answer<'run.chatCommandOutputRead'>> {
  const range = await runtime.readHistoryOutput(params.appSessionId, params.runId, params.commandId, params.generation, params.offset, params.length);
  const result = {
    offset: range.offset,
    dataBase64: params.transfer === 'binary' ? '' : range.bytes.toString('base64'),
    byteCount: range.bytes.length,
    availableBytes: range.availableBytes,
    generation: range.generation,
    complete: range.complete,
    sourceIncomplete: range.sourceIncomplete,
  };
  if (params.transfer !== 'binary') return result;
  const reply = frames.reserve(range.bytes.length);
  range.bytes.copy(reply.data(range.bytes.length));
  return reply.complete(result);
}

function notBuiltYet(method: string): RuntimeError {
  return new RuntimeError('unavailable', `${method} is not available in this runtime yet.`);
}
