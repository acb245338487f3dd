import { liftedGuardRails, requireGuardRailConfirmation } from './guardRails';
import type { MethodName, MethodParamsParsed, MethodResult } from '../../lib/protocol/methods';
import { PROTOCOL_VERSION } from '../../lib/protocol/version';
import type { Identity } from '../auth/deviceAuth';
import { RuntimeError } from '../runtime/errors';
import type { Runtime } from '../runtime/runtime';
import { fetchWebImage } from '../runtime/web/fetchWebImage';
import { DEFAULT_WEB_FETCH_LIMITS, fetchWebPage, PRIVATE_FETCH_LIMITS } from '../runtime/web/fetchWebPage';
import { answerWithBytes, BinaryFramePool, type BinaryReply } from './binaryReply';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from '../../lib/protocol/version';
import type { PreviewOrigins } from '../http/previewOrigins';
import { createPreviewHandlers } from './previewHandlers';
import { createDeviceHandlers } from './deviceHandlers';
import { createClaudeHandlers } from './claudeHandlers';
import { createCodexAccountHandlers } from './codexAccountHandlers';
import { createCodexSourceHandlers } from './codexSourceHandlers';
import { createAttachmentHandlers } from './attachmentHandlers';
import { createAppBuildHandler } from './appBuildHandler';
import { createGitHandlers } from './gitHandlers';
import { FILE_CHUNK_BYTES, MEDIA_CHUNK_BYTES } from '../../lib/protocol/files';
import { RunningSearches } from './runningSearches';
import { viewerOf } from '../runtime/sessions/sessionActivity';
import { ShownSessions } from './shownSessions';

export const SERVER_VERSION = '0.1.0';

/** What a handler knows about the socket that called it. */
export interface CallContext {
  identity: Identity | null;
  /** The app origin, for links the runtime hands out. */
  appOrigin: string;
  authenticate(identity: Identity): void;
  /** The bytes after the request of a binary request frame (BINARY_REQUEST_METHODS, ATT-1). */
  requestBytes?: Buffer;
  /** Aborted when the socket goes: long work for it can stop. */
  signal?: AbortSignal;
}

/** A result, or for a method whose result (or one of its variants) carries bytes, a binary reply. */
type Answer<M extends MethodName> =
  MethodResult<M> | ([Extract<MethodResult<M>, { dataBase64: string }>] extends [never] ? never : BinaryReply);
type Handler<M extends MethodName> = (
  params: MethodParamsParsed<M>,
  ctx: CallContext,
) => Answer<M> | Promise<Answer<M>>;
export type MethodHandlers = { [M in MethodName]: Handler<M> };

export const pairingUrl = (appOrigin: string, code: string) => `${appOrigin}/pair#code=${encodeURIComponent(code)}`;

/** Protocol v1 over the runtime: params arrive validated, results leave typed (RPC-4). */
export function createMethodHandlers(
  runtime: Runtime,
  previewOrigins: PreviewOrigins,
  /** On local connections of a desktop linked to a relay: the same code's link on its relay name (RLY-2). */
  relayPairingLink: () => ((code: string) => string) | null = () => null,
): MethodHandlers {
  const outputFrames = new BinaryFramePool(MAX_COMMAND_OUTPUT_RANGE_BYTES);
  const preview = createPreviewHandlers(runtime.previews, previewOrigins);
  const fileFrames = new BinaryFramePool(FILE_CHUNK_BYTES);
  const mediaFrames = new BinaryFramePool(MEDIA_CHUNK_BYTES);
  const searches = new RunningSearches();
  const sessionsShown = new ShownSessions();
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
      if (!identity) throw new RuntimeError('unauthorized', runtime.auth.refusalReason(params.token));
      ctx.authenticate(identity);
      return { protocolVersion: PROTOCOL_VERSION, serverVersion: SERVER_VERSION, deviceId: identity.deviceId };
    },
    'pair.redeem'(params) {
      const redeemed = runtime.auth.redeem(params.code, params.deviceName);
      if (!redeemed)
        throw new RuntimeError(
          'unauthorized',
          'This pairing code is wrong, used or expired. Ask the computer for a new one.',
        );
      return redeemed;
    },
    'pair.create'(_params, ctx) {
      const { code, expiresAt } = runtime.auth.createPairingCode();
      const relayLink = relayPairingLink();
      return {
        code,
        expiresAt,
        url: pairingUrl(ctx.appOrigin, code),
        ...(relayLink ? { relayUrl: relayLink(code) } : {}),
      };
    },
    'devices.list'(_params, ctx) {
      return {
        devices: runtime.auth.devices(ctx.identity?.deviceId ?? null),
        requests: runtime.devicePowers.pending(),
      };
    },
    ...createDeviceHandlers(runtime),
    ...createAppBuildHandler(),
    'projects.list'() {
      return { projects: runtime.projects };
    },
    async 'sessions.create'(params, ctx) {
      const lifted = params.settings ? liftedGuardRails(params.settings, null) : [];
      requireGuardRailConfirmation(lifted, params.confirmLiftedGuardRails);
      const { confirmLiftedGuardRails: _confirmed, ...request } = params;
      const session = await runtime.createSession(request);
      if (lifted.length > 0)
        runtime.devicePowers.announceLiftedGuardRails(ctx.identity?.deviceId ?? null, session.id, lifted);
      return { session };
    },
    'sessions.settings'(params) {
      return { settings: runtime.sessionSettings(params.sessionId) };
    },
    'sessions.configure'(params, ctx) {
      const lifted = liftedGuardRails(params.settings, runtime.sessionSettings(params.sessionId));
      requireGuardRailConfirmation(lifted, params.confirmLiftedGuardRails);
      const settings = runtime.configureSession(params.sessionId, params.settings);
      if (lifted.length > 0)
        runtime.devicePowers.announceLiftedGuardRails(ctx.identity?.deviceId ?? null, params.sessionId, lifted);
      return { settings };
    },
    async 'agents.recentConversations'(params) {
      return { conversations: await runtime.recentConversations(params) };
    },
    async 'agents.models'(params) {
      return { models: await runtime.agentModels(params.agent, params.accountKey) };
    },
    async 'agents.commands'(params) {
      return { commands: await runtime.agentCommands(params.sessionId) };
    },
    'usage.list'() {
      return { readings: runtime.usageList() };
    },
    ...createCodexAccountHandlers(runtime.codexAccounts),
    ...createCodexSourceHandlers(runtime),
    'agents.list'() {
      return { agents: runtime.listAgents() };
    },
    'approvals.list'(params) {
      return { approvals: runtime.pendingApprovals(params.sessionId) };
    },
    'approvals.answer'(params) {
      return { approval: runtime.answerApproval(params.sessionId, params.approvalId, params.decision, params.answers) };
    },
    'sessions.list'(params, ctx) {
      return { sessions: runtime.listSessions(params?.projectId, viewerOf(ctx.identity?.deviceId)) };
    },
    'sessions.rename'(params, ctx) {
      return { session: runtime.renameSession(params.sessionId, params.title, viewerOf(ctx.identity?.deviceId)) };
    },
    'sessions.seen'(params, ctx) {
      sessionsShown.show(
        ctx,
        params.sessionId,
        runtime.markSessionSeen(params.sessionId, viewerOf(ctx.identity?.deviceId), params.open),
      );
      return {};
    },
    'sessions.command'(params) {
      return { row: runtime.commandOfSession(params.sessionId, params.runId, params.commandId) };
    },
    'sessions.timeline'(params) {
      return runtime.timeline({ ...params, parentItemId: params.parentItemId ?? null });
    },
    'sessions.itemText'(params) {
      return runtime.itemText({ ...params, parentItemId: params.parentItemId ?? null });
    },
    async 'sessions.delete'(params) {
      await runtime.deleteSession(params.sessionId, { removeWorktree: params.removeWorktree, force: params.force });
      return {};
    },
    'chat.send'(params) {
      return runtime.chatSend(params.sessionId, params.operationId, params.text, {
        mode: params.mode,
        uploadIds: params.attachments?.map((a) => a.uploadId),
      });
    },
    'run.cancel'(params) {
      runtime.cancelRun(params.sessionId, params.runId);
      return {};
    },
    'run.chatCommandOutputRead'(params) {
      if (runtime.isHistoryOutput(params.runId, params.commandId))
        return readHistoryOutput(runtime, params, outputFrames);
      return answerWithBytes(outputFrames, params.transfer, (into) => {
        const { bytes, ...result } = runtime.readCommandOutput(
          params.appSessionId,
          params.runId,
          params.commandId,
          params.generation,
          params.offset,
          params.length,
          into,
        );
        return { bytes, result };
      });
    },
    async 'run.chatCommandOutputFind'(params, ctx) {
      const search = searches.start(ctx, params.searchId);
      try {
        return await runtime.findCommandOutput(
          params.appSessionId,
          params.runId,
          params.commandId,
          params.generation,
          params.query,
          search.signal,
        );
      } finally {
        searches.end(ctx, params.searchId, search);
      }
    },
    'run.chatCommandOutputFindCancel'(params, ctx) {
      searches.cancel(ctx, params.searchId);
      return {};
    },
    'files.list'(params) {
      return { entries: runtime.files.list(params.projectDirectory, params.path) };
    },
    'files.readContent'(params) {
      return runtime.files.readContent(params.projectDirectory, params.path, params.allowExternalFile);
    },
    'files.readBinary'(params) {
      return answerWithBytes(fileFrames, params.transfer, (into) => {
        const { bytes, ...result } = runtime.files.readBinary(
          params.projectDirectory,
          params.path,
          params.offset,
          into,
          params.allowExternalFile,
          params.length,
        );
        return { bytes, result };
      });
    },
    async 'files.readMediaRendition'(params) {
      const { offset, transfer, ...request } = params;
      const ready = await runtime.media.prepare(request);
      await runtime.media.waitForBytes(ready, offset);
      return answerWithBytes(mediaFrames, transfer, (into) => {
        const { bytes, ...result } = runtime.media.readChunk(ready, offset, into);
        return { bytes, result };
      });
    },
    ...preview,
    ...createClaudeHandlers(runtime),
    ...createAttachmentHandlers(runtime),
    'terminal.open'(params) {
      return runtime.openTerminal(params.sessionId, { cols: params.cols, rows: params.rows });
    },
    'terminal.input'(params) {
      runtime.terminalInput(params.sessionId, params.data);
      return {};
    },
    'terminal.resize'(params) {
      runtime.terminalResize(params.sessionId, { cols: params.cols, rows: params.rows });
      return {};
    },
    ...createGitHandlers(runtime.git),
    'web.fetchPage'(params) {
      return fetchWebPage(params.url, runtime.allowPrivateFetch ? PRIVATE_FETCH_LIMITS : DEFAULT_WEB_FETCH_LIMITS);
    },
    'web.fetchImage'(params) {
      return fetchWebImage(params.url, runtime.allowPrivateFetch ? PRIVATE_FETCH_LIMITS : DEFAULT_WEB_FETCH_LIMITS);
    },
  };
}

/** OUT-7: output only the agent's history holds, read through the agent, answered like any other read. */
async function readHistoryOutput(
  runtime: Runtime,
  params: MethodParamsParsed<'run.chatCommandOutputRead'>,
  frames: BinaryFramePool,
): Promise<Answer<'run.chatCommandOutputRead'>> {
  const { bytes: read, ...result } = await runtime.readHistoryOutput(
    params.appSessionId,
    params.runId,
    params.commandId,
    params.generation,
    params.offset,
    params.length,
  );
  return answerWithBytes(frames, params.transfer, (into) => {
    const bytes = into(read.length);
    read.copy(bytes);
    return { bytes, result };
  });
}
