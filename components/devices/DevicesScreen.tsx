'use client';
import type { RpcClient } from '../../lib/client/rpcClient';
import { DeviceList } from './DeviceList';
import { NotificationSettings } from './NotificationSettings';
import { PairAnotherDevice } from './PairAnotherDevice';
import './devices.css';

/** `#/devices`: pair another device, the paired devices, this device's notifications (DEV-1, PUSH-1). */
export function DevicesScreen({ client }: { client: RpcClient | null }) {
  return (
    <main className="scroll devices">
      <PairAnotherDevice client={client} />
      <DeviceList client={client} />
      <NotificationSettings client={client} />
    </main>
  );
}
