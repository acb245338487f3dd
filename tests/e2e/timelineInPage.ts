// What the timeline browser test loads into a page: the real client data layer (TL-4).
export { RpcClient } from '../../lib/client/rpcClient';
export { TimelineStore } from '../../lib/client/timeline/timelineStore';
export { PROTOCOL_VERSION } from '../../lib/protocol/version';
