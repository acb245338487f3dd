'use client';
import { useCallback, useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { Device } from '../../lib/protocol/rows';
import { DeviceItem } from './DeviceItem';

/** How often the list is read again, so a device paired elsewhere shows up without a reload. */
const REFRESH_MS = 5000;

/** DEV-1: the paired devices, this one marked, each with Rename and Revoke. */
export function DeviceList({ client }: { client: RpcClient | null }) {
  const [devices, setDevices] = useState<Device[] | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    if (!client) return;
    try {
      setDevices((await client.call('devices.list')).devices);
      setNow(Date.now());
      setError(null);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'Could not read the devices.');
    }
  }, [client]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const act = async (work: (client: RpcClient) => Promise<unknown>) => {
    if (!client) return;
    try {
      await work(client);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'That did not work.');
    }
    await refresh();
  };

  return (
    <section className="card devices-section" aria-labelledby="device-list">
      <h2 id="device-list">Devices</h2>
      {!client && <p className="muted">Connect to the computer to see its devices.</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ul className="device-list">
        {devices?.map((device) => (
          <DeviceItem
            key={device.id}
            device={device}
            now={now}
            onRename={(name) => act((c) => c.call('devices.rename', { deviceId: device.id, name }))}
            onRevoke={() => act((c) => c.call('devices.revoke', { deviceId: device.id }))}
          />
        ))}
      </ul>
    </section>
  );
}
