import { z } from 'zod';
import { MAX_COMMAND_OUTPUT_RANGE_BYTES } from './version';
import {
  FILE_CHUNK_BYTES,
  FileChunkSchema,
  FileEntrySchema,
  MAX_RENDITION_DIMENSION,
  MediaChunkSchema,
  PreviewIdSchema,
  RenditionKindSchema,
  RequestPathSchema,
} from './files';
import { WebImageSchema, WebPageSchema } from './webPage';
import { PushEventsSchema, PushSubscriptionSchema } from './push';
import { claudeMethods } from './claudeMethods';
import { terminalMethods } from './terminal';
import { gitMethods } from './git';
import {
  AgentCommandSchema,
  AgentInfoSchema,
  AgentKindWithModelsSchema,
  AgentModelSchema,
  ApprovalDecisionSchema,
  RecentConversationSchema,
  ApprovalSchema,
  SessionAgentSettingsSchema,
  UsageReadingSchema,
} from './agents';
import {
  CodexLoginMethodSchema,
  CodexLoginSchema,
  CodexProfileSchema,
  CodexRolloutSchema,
  CodexThreadSchema,
} from './accounts';
import {
  ATTACHMENT_CHUNK_BYTES,
  AttachmentNameSchema,
  MAX_ATTACHMENT_BYTES,
  MAX_MESSAGE_ATTACHMENTS,
  MimeTypeSchema,
  Sha256HexSchema,
  UploadIdSchema,
  UploadStatusSchema,
} from './attachments';
import { DeviceRequestSchema } from './devices';
import { DeviceNameSchema } from './names';
import {
  AgentKindSchema,
  CommandRowSchema,
  DeviceSchema,
  MessageStateSchema,
  ProjectSchema,
  SessionSchema,
  TimelineRowSchema,
} from './rows';

const Id = z.string().min(1).max(200);
/** `binary` answers with one binary frame (see binaryFrame.ts) instead of base64 in JSON. */
const TransferSchema = z.enum(['base64', 'binary']);
const Empty = z.object({}).strict();
/** A new branch's name (SES-10): git checks the rest; a leading `-` could read as an option. */
const BranchNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^-\s]/, 'A branch name cannot start with "-".');
/** Which command output a read or a find is of: one generation of one command of a session's run (OUT-5). */
const commandOutputOf = { appSessionId: Id, runId: Id, commandId: Id, generation: z.number().int().min(1) };

/**
 * Every method of protocol v1 (RPC-4): params and result schemas, shared by the runtime and every client.
 * Params are strict so a misspelt field is an error, not a silent default.
 */
export const methods = {
  'auth.hello': {
    params: z.object({ token: z.string().min(1).max(512), protocolVersion: z.number().int() }).strict(),
    result: z.object({ protocolVersion: z.number().int(), serverVersion: z.string(), deviceId: z.string().nullable() }),
  },
  'pair.redeem': {
    params: z.object({ code: z.string().min(1).max(64), deviceName: DeviceNameSchema }).strict(),
    result: z.object({ token: z.string(), deviceId: z.string() }),
  },
  'pair.create': {
    params: Empty.optional(),
    /** `relayUrl`: the same code's link on the desktop's own relay name (`https://<desktopId>.HOST/pair#code=…`), when it links to a relay (RLY-2). */
    result: z.object({
      code: z.string(),
      expiresAt: z.number().int(),
      url: z.string(),
      relayUrl: z.string().optional(),
    }),
  },
  'devices.list': {
    params: Empty.optional(),
    /** `requests`: changes waiting for a device's confirmation (DEV-2). */
    result: z.object({ devices: z.array(DeviceSchema), requests: z.array(DeviceRequestSchema) }),
  },
  /** DEV-2: about itself a device acts at once; about another, `pending` is the request that device must confirm. */
  'devices.revoke': {
    params: z.object({ deviceId: Id }).strict(),
    result: z.object({ pending: DeviceRequestSchema.optional() }),
  },
  'devices.rename': {
    params: z.object({ deviceId: Id, name: DeviceNameSchema }).strict(),
    result: z.object({ pending: DeviceRequestSchema.optional() }),
  },
  /** DEV-2: the device a request is about confirms (`accept`) or declines it. */
  'devices.confirm': {
    params: z.object({ requestId: Id, accept: z.boolean() }).strict(),
    result: z.object({}),
  },
  /** This device's Web Push subscriptions and the key to subscribe with (PUSH-1). */
  'push.status': {
    params: Empty.optional(),
    result: z.object({
      vapidPublicKey: z.string(),
      subscriptions: z.array(z.object({ endpoint: z.string(), events: PushEventsSchema })),
    }),
  },
  /** Saves (or updates the events of) this device's subscription. */
  'push.subscribe': {
    params: z.object({ subscription: PushSubscriptionSchema, events: PushEventsSchema }).strict(),
    result: z.object({}),
  },
  'push.unsubscribe': {
    params: z.object({ endpoint: z.string().min(1).max(2048) }).strict(),
    result: z.object({}),
  },
  /** The digest of the app build the desktop serves (RLY-5); the connection's resume check asks it, as the cheapest question. */
  'app.build': {
    params: Empty.optional(),
    result: z.object({ digest: z.string().regex(/^[0-9a-f]{64}$/) }),
  },
  'projects.list': {
    params: Empty.optional(),
    result: z.object({ projects: z.array(ProjectSchema) }),
  },
  'sessions.create': {
    params: z
      .object({
        projectId: Id,
        agent: AgentKindSchema,
        title: z.string().max(200).optional(),
        /** Claude only: continue this saved Claude conversation instead of starting a new one. */
        claudeSessionId: z.uuid().optional(),
        /** The agent's settings for this session (ACC-5); defaults where absent (Codex: workspace-write). */
        settings: SessionAgentSettingsSchema.optional(),
        /**
         * Codex only: continue this thread of the chosen profile, as `codex.threads.list` lists it (ACC-8), or
         * of the person's own Codex home, as `agents.recentConversations` lists it: copied into the profile first (ACC-11).
         */
        codexThreadId: z.string().min(1).max(200).optional(),
        /** Codex only (SRC-2): read the conversation of this file, as `codex.rollouts.list` lists it. */
        codexRolloutPath: z.string().min(1).max(4096).optional(),
        /** DEV-2: the user confirmed settings that lift the agent's guard rails. */
        confirmLiftedGuardRails: z.literal(true).optional(),
        /**
         * Addition (SES-10), Codex and Claude only: a new branch from the project's HEAD and a worktree
         * for it in `<project>.worktrees/`, where the session's agent runs. No `branch`: a name is made up.
         */
        worktree: z.object({ branch: BranchNameSchema.optional() }).strict().optional(),
      })
      .strict(),
    result: z.object({ session: SessionSchema }),
  },
  /** A session's agent settings (ACC-5). */
  'sessions.settings': {
    params: z.object({ sessionId: Id }).strict(),
    result: z.object({ settings: SessionAgentSettingsSchema }),
  },
  /** Changes a session's agent settings; the next turn runs with them (ACC-5). */
  'sessions.configure': {
    params: z
      .object({
        sessionId: Id,
        settings: SessionAgentSettingsSchema,
        confirmLiftedGuardRails: z.literal(true).optional(),
      })
      .strict(),
    result: z.object({ settings: SessionAgentSettingsSchema }),
  },
  'sessions.list': {
    params: z.object({ projectId: Id.optional() }).strict().optional(),
    result: z.object({ sessions: z.array(SessionSchema) }),
  },
  /** Renames a session on every device (UX-3); `sessions.changed` tells the others. */
  'sessions.rename': {
    params: z.object({ sessionId: Id, title: z.string().trim().min(1).max(200) }).strict(),
    result: z.object({ session: SessionSchema }),
  },
  /**
   * Addition (UX-8): what the session did so far is seen on this device, so the list's "done,
   * unread" badge goes here (and stays on the others). `open`: the session stays on this socket's
   * screen, and what it does is seen as it happens, until a call with `open: false` or the socket goes.
   */
  'sessions.seen': {
    params: z.object({ sessionId: Id, open: z.boolean() }).strict(),
    result: z.object({}),
  },
  /** One command row of a session, for an output viewer opened from its address (UX-1). */
  'sessions.command': {
    params: z.object({ sessionId: Id, runId: Id, commandId: Id }).strict(),
    result: z.object({ row: CommandRowSchema }),
  },
  'sessions.timeline': {
    params: z
      .object({
        sessionId: Id,
        /** A subagent row's itemId: that subagent's own timeline (TL-1). */
        parentItemId: Id.optional(),
        /** Paging (TL-4): cursors from an earlier answer; neither: the newest page. */
        before: z.string().min(1).max(4096).optional(),
        after: z.string().min(1).max(4096).optional(),
        limit: z.number().int().min(1).max(500).optional(),
      })
      .strict(),
    result: z.object({
      rows: z.array(TimelineRowSchema),
      /** Pass as `before` for the page just older; null at the first row. Absent from runtimes before paging. */
      older: z.string().nullable().optional(),
      /** Pass as `after` for the page just newer; null at the newest row. */
      newer: z.string().nullable().optional(),
      /** The live overlay revision these rows include (TL-3). */
      revision: z.number().int().nonnegative().optional(),
    }),
  },
  /** A slice of one long text of an agent item row (a `TextBody` with `truncated`), TL-1. */
  'sessions.itemText': {
    params: z
      .object({
        sessionId: Id,
        parentItemId: Id.optional(),
        itemId: Id,
        /** Which text: `text`, `input`, `result`, `detail`, or `files.<index>.diff`. */
        field: z.string().min(1).max(64),
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        length: z.number().int().min(1).max(MAX_COMMAND_OUTPUT_RANGE_BYTES),
      })
      .strict(),
    result: z.object({
      offset: z.number().int(),
      dataBase64: z.string(),
      byteCount: z.number().int(),
      availableBytes: z.number().int(),
    }),
  },
  'sessions.delete': {
    params: z
      .object({
        sessionId: Id,
        /** Addition (SES-11): also remove the session's worktree and branch. */
        removeWorktree: z.boolean().optional(),
        /** SES-11: remove them even when they hold commits the project's HEAD lacks or uncommitted changes. */
        force: z.boolean().optional(),
      })
      .strict()
      .refine((p) => p.force === undefined || p.removeWorktree === true, {
        message: 'force only applies with removeWorktree: true.',
        path: ['force'],
      }),
    result: z.object({}),
  },
  'chat.send': {
    params: z
      .object({
        sessionId: Id,
        operationId: Id,
        text: z
          .string()
          .min(1)
          .max(1024 * 1024),
        /** While a turn runs (ACC-6): `queue` waits for it (the default), `steer` gives the text to it. */
        mode: z.enum(['queue', 'steer']).optional(),
        /** Addition (ATT-1): complete uploads of this session, in the order the message shows them. */
        attachments: z
          .array(z.object({ uploadId: UploadIdSchema }).strict())
          .min(1)
          .max(MAX_MESSAGE_ATTACHMENTS)
          .optional(),
      })
      .strict(),
    result: z.object({ operationId: z.string(), runId: z.string(), state: MessageStateSchema }),
  },
  'run.cancel': {
    params: z.object({ sessionId: Id, runId: Id }).strict(),
    result: z.object({}),
  },
  'run.chatCommandOutputRead': {
    params: z
      .object({
        ...commandOutputOf,
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        length: z.number().int().min(1).max(MAX_COMMAND_OUTPUT_RANGE_BYTES),
        transfer: TransferSchema.optional(),
      })
      .strict(),
    result: z.object({
      offset: z.number().int(),
      dataBase64: z.string(),
      byteCount: z.number().int(),
      availableBytes: z.number().int(),
      generation: z.number().int(),
      complete: z.boolean(),
      sourceIncomplete: z.boolean(),
    }),
  },
  /**
   * Every place `query` shows (case-insensitive) in a command's output as a terminal shows it,
   * searched on the desktop (PWA-2): each place is the byte offset of its row and the column in
   * it. Bounded: `complete` is false when the match or time limit stopped the search.
   */
  'run.chatCommandOutputFind': {
    params: z
      .object({
        ...commandOutputOf,
        query: z.string().min(1).max(256),
        /** Names the search for `run.chatCommandOutputFindCancel`. */
        searchId: z.string().min(1).max(64).optional(),
      })
      .strict(),
    result: z.object({
      matches: z.array(z.object({ offset: z.number().int().min(0), column: z.number().int().min(0) })),
      complete: z.boolean(),
      /** The output's length when the search began; later bytes of a running command are not searched. */
      searchedBytes: z.number().int().min(0),
      generation: z.number().int(),
    }),
  },
  /** Stops a search of this device's that is still running; its call answers with what it found. */
  'run.chatCommandOutputFindCancel': {
    params: z.object({ searchId: z.string().min(1).max(64) }).strict(),
    result: z.object({}),
  },
  /** ATT-1: starts (or, for the same file again, resumes) an upload into the session's attachments. */
  'attachments.begin': {
    params: z
      .object({
        sessionId: Id,
        name: AttachmentNameSchema,
        mimeType: MimeTypeSchema,
        /** Checked against the limit here; 0 bytes is no attachment. */
        byteLength: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
        sha256: Sha256HexSchema,
      })
      .strict(),
    result: UploadStatusSchema,
  },
  /**
   * ATT-1: one chunk at `confirmedOffset`, exactly 1 MiB (the last one: the rest). The bytes come
   * in `dataBase64`, or raw after the request in one binary frame (then `dataBase64` is "").
   */
  'attachments.chunk': {
    params: z
      .object({
        sessionId: Id,
        uploadId: UploadIdSchema,
        offset: z.number().int().min(0).max(MAX_ATTACHMENT_BYTES),
        sha256: Sha256HexSchema,
        dataBase64: z.string().max(Math.ceil(ATTACHMENT_CHUNK_BYTES / 3) * 4),
      })
      .strict(),
    result: UploadStatusSchema,
  },
  'attachments.status': {
    params: z.object({ sessionId: Id, uploadId: UploadIdSchema }).strict(),
    result: UploadStatusSchema,
  },
  /** A chunk of a complete attachment, answered like files.readBinary (FILE-2: verified chunks). */
  'attachments.read': {
    params: z
      .object({
        sessionId: Id,
        uploadId: UploadIdSchema,
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        length: z.number().int().min(1).max(FILE_CHUNK_BYTES).optional(),
        transfer: TransferSchema.optional(),
      })
      .strict(),
    result: FileChunkSchema,
  },
  'agents.list': {
    params: Empty.optional(),
    result: z.object({ agents: z.array(AgentInfoSchema) }),
  },
  'approvals.list': {
    params: z.object({ sessionId: Id }).strict(),
    result: z.object({ approvals: z.array(ApprovalSchema) }),
  },
  'approvals.answer': {
    params: z
      .object({
        sessionId: Id,
        approvalId: Id,
        decision: ApprovalDecisionSchema,
        /** A `question` approval's answers by question id: chosen labels or free text (ACC-4). */
        answers: z.record(z.string().max(200), z.array(z.string().max(10_000)).max(50)).optional(),
      })
      .strict(),
    result: z.object({ approval: ApprovalSchema }),
  },
  /** Models the user can pick (ACC-5): Codex model/list of a profile, Claude's supported models. */
  'agents.models': {
    params: z.object({ agent: AgentKindWithModelsSchema, accountKey: Id.optional() }).strict(),
    result: z.object({ models: z.array(AgentModelSchema) }),
  },
  /** The slash commands of a session's agent (UX-10); empty for a shell or terminal session. */
  'agents.commands': {
    params: z.object({ sessionId: Id }).strict(),
    result: z.object({ commands: z.array(AgentCommandSchema) }),
  },
  /**
   * Addition (ACC-11): the conversations Claude or Codex saved for a project folder, newest first,
   * including those started in a terminal. Codex: of the profile `accountKey` (else the first).
   */
  'agents.recentConversations': {
    params: z
      .object({
        projectDirectory: z.string().min(1).max(4096),
        agent: AgentKindWithModelsSchema,
        accountKey: Id.optional(),
        limit: z.number().int().min(1).max(200).optional(),
      })
      .strict(),
    result: z.object({ conversations: z.array(RecentConversationSchema) }),
  },
  /** Each account's current plan-limit windows (ACC-7). */
  'usage.list': {
    params: Empty.optional(),
    result: z.object({ readings: z.array(UsageReadingSchema) }),
  },
  /** Codex profiles with their sign-in status (ACC-1). */
  'codex.profiles.list': {
    params: Empty.optional(),
    result: z.object({ profiles: z.array(CodexProfileSchema) }),
  },
  'codex.profiles.add': {
    params: z.object({ name: z.string().trim().min(1).max(100) }).strict(),
    result: z.object({ profile: CodexProfileSchema }),
  },
  'codex.profiles.rename': {
    params: z.object({ profileId: Id, name: z.string().trim().min(1).max(100) }).strict(),
    result: z.object({ profile: CodexProfileSchema }),
  },
  /** Deletes the profile and its folder; refused while a session still links a thread in it (ACC-1). */
  'codex.profiles.remove': {
    params: z.object({ profileId: Id }).strict(),
    result: Empty,
  },
  /** Asks the profile's account again (account/read). */
  'codex.profiles.refresh': {
    params: z.object({ profileId: Id }).strict(),
    result: z.object({ profile: CodexProfileSchema }),
  },
  /** Starts a sign-in (ACC-1); completion arrives as `codex.profile.changed`. */
  'codex.login.start': {
    params: z
      .object({ profileId: Id, method: CodexLoginMethodSchema, apiKey: z.string().min(1).max(4096).optional() })
      .strict(),
    result: z.object({ login: CodexLoginSchema, profile: CodexProfileSchema }),
  },
  'codex.logout': {
    params: z.object({ profileId: Id }).strict(),
    result: z.object({ profile: CodexProfileSchema }),
  },
  /** The profile's saved Codex conversations, newest first (ACC-8). */
  'codex.threads.list': {
    params: z.object({ profileId: Id, cwd: z.string().min(1).max(4096).optional() }).strict(),
    result: z.object({ threads: z.array(CodexThreadSchema) }),
  },
  /** SRC-1: the Codex conversation files of this computer's Codex homes, newest first, a page at a time. */
  'codex.rollouts.list': {
    params: z
      .object({ cursor: z.string().min(1).max(4096).optional(), limit: z.number().int().min(1).max(200).optional() })
      .strict()
      .optional(),
    result: z.object({ rollouts: z.array(CodexRolloutSchema), next: z.string().nullable() }),
  },
  /** SRC-2, SRC-4: the file a Codex session reads its conversation from (null: none chosen), and whether it takes messages. */
  'codex.source.get': {
    params: z.object({ sessionId: Id }).strict(),
    result: z.object({ source: z.object({ path: z.string(), readOnly: z.boolean() }).nullable() }),
  },
  /** SRC-2: after `source_unavailable`, the session reads the same conversation from a file chosen again. */
  'codex.source.choose': {
    params: z.object({ sessionId: Id, path: z.string().min(1).max(4096) }).strict(),
    result: z.object({}),
  },
  'files.list': {
    params: z.object({ projectDirectory: z.string().min(1).max(4096), path: RequestPathSchema }).strict(),
    result: z.object({ entries: z.array(FileEntrySchema) }),
  },
  'files.readContent': {
    params: z
      .object({
        projectDirectory: z.string().min(1).max(4096),
        path: RequestPathSchema,
        /** Accepted and ignored (FILE-1). */
        encoding: z.string().max(40).optional(),
        allowExternalFile: z.boolean().optional(),
      })
      .strict(),
    result: z.object({
      text: z.string(),
      byteLength: z.number().int().nonnegative(),
      contentVersion: z.string(),
      modifiedAt: z.number(),
      mimeType: z.string(),
    }),
  },
  'files.readBinary': {
    params: z
      .object({
        projectDirectory: z.string().min(1).max(4096),
        path: RequestPathSchema,
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        /**
         * Addition: a chunk shorter than 4 MiB. Browsers take 256 KiB WebSocket messages several
         * times faster than 4 MiB ones, so the app asks for those, a few at a time.
         */
        length: z.number().int().min(1).max(FILE_CHUNK_BYTES).optional(),
        transfer: TransferSchema.optional(),
        allowExternalFile: z.boolean().optional(),
      })
      .strict(),
    result: FileChunkSchema,
  },
  /**
   * Addition (FILE-10): a phone-sized rendition of an image, video or audio file, read like
   * `files.readBinary` in 1 MiB chunks from any offset (a player's range read).
   */
  'files.readMediaRendition': {
    params: z
      .object({
        projectDirectory: z.string().min(1).max(4096),
        path: RequestPathSchema,
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        maxWidth: z.number().int().min(16).max(MAX_RENDITION_DIMENSION).optional(),
        maxHeight: z.number().int().min(16).max(MAX_RENDITION_DIMENSION).optional(),
        kind: RenditionKindSchema.optional(),
        /** The version pinned by the first chunk: a later chunk of another version is refused (FILE-12). */
        contentVersion: z.string().max(64).optional(),
        transfer: TransferSchema.optional(),
      })
      .strict(),
    result: MediaChunkSchema,
  },
  'preview.open': {
    params: z
      .object({ previewId: PreviewIdSchema, projectDirectory: z.string().min(1).max(4096), path: RequestPathSchema })
      .strict(),
    result: z.object({
      previewId: z.string(),
      origin: z.string(),
      url: z.string(),
      /**
       * Additions: the bootstrap page to frame; the document's URL path on the origin; the prefix
       * of every path of this preview (`/`, or `/p-<id>/` on a shared origin); the root's path for
       * display; whether other previews share this origin (ORG-3).
       */
      hostUrl: z.string(),
      documentPath: z.string(),
      pathPrefix: z.string(),
      root: z.string(),
      sharedOrigin: z.boolean(),
    }),
  },
  /** An addition: forgets a binding and stops watching its files. */
  'preview.close': {
    params: z.object({ previewId: PreviewIdSchema }).strict(),
    result: Empty,
  },
  'files.readHtmlPreviewResource': {
    params: z
      .object({
        previewId: PreviewIdSchema,
        path: RequestPathSchema,
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        transfer: TransferSchema.optional(),
      })
      .strict(),
    result: z.discriminatedUnion('status', [
      FileChunkSchema.extend({ status: z.literal(200) }),
      z.object({ status: z.literal(404) }),
    ]),
  },
  'web.fetchPage': {
    params: z.object({ url: z.string().min(1).max(8192) }).strict(),
    result: WebPageSchema,
  },
  /** An image of a page read as Markdown, fetched by the desktop (MD-5). */
  'web.fetchImage': {
    params: z.object({ url: z.string().min(1).max(8192) }).strict(),
    result: WebImageSchema,
  },
  ...claudeMethods,
  ...terminalMethods,
  ...gitMethods,
} as const;

export type MethodName = keyof typeof methods;
export type MethodParams<M extends MethodName> = z.input<(typeof methods)[M]['params']>;
export type MethodParamsParsed<M extends MethodName> = z.output<(typeof methods)[M]['params']>;
export type MethodResult<M extends MethodName> = z.output<(typeof methods)[M]['result']>;

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(methods, name);
}

/** Methods a socket may call before `auth.hello` succeeds (RPC-2). */
export const UNAUTHENTICATED_METHODS: ReadonlySet<MethodName> = new Set(['auth.hello', 'pair.redeem']);
/** Methods a client may send as one binary frame: the request, then its bytes (binaryFrame.ts, ATT-1). */
export const BINARY_REQUEST_METHODS: ReadonlySet<MethodName> = new Set(['attachments.chunk']);
