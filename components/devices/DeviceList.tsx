'use client';
import { useCallback, useEffect, useState } from 'react';
import type { RpcClient } from '../../lib/client/rpcClient';
import type { DeviceRequest } from '../../lib/protocol/devices';
import type { Device } from '../../lib/protocol/rows';
import { DeviceItem } from './DeviceItem';
import { DeviceRequests } from './DeviceRequests';

/** How often the list is read again, so a device paired elsewhere shows up without a reload. */
const REFRESH_MS = 5000;

/**
 * DEV-1, DEV-2: the paired devices, this one marked, each with Rename and Revoke; what one device
 * asks about another waits for that device here. Every change is announced (`devices.changed`),
 * so the list follows it at once.
 */
export function DeviceList({ client }: { client: RpcClient | null }) {
  const [devices, setDevices] = useState<Device[] | null>(null);
  const [requests, setRequests] = useState<DeviceRequest[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    if (!client) return;
    try {
      const listed = await client.call('devices.list');
      setDevices(listed.devices);
      setRequests(listed.requests);
      setNow(Date.now());
      setError(null);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'Could not read the devices.');
    }
  }, [client]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    const stop = client?.onNotification('devices.changed', () => void refresh());
    return () => {
      clearInterval(timer);
      stop?.();
    };
  }, [client, refresh]);

  const act = async (work: (client: RpcClient) => Promise<{ pending?: DeviceRequest } | object>, device?: Device) => {
    if (!client) return;
    try {
      const result = await work(client);
      setNotice(
        'pending' in result && result.pending && device
          ? `Asked ${device.name} to confirm. Nothing changes until it does.`
          : null,
      );
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
      {notice && (
        <p className="notice" role="status">
          <bdi>{notice}</bdi>
        </p>
      )}
      {devices && (
        <DeviceRequests
          requests={requests}
          devices={devices}
          now={now}
          onAnswer={(request, accept) =>
            act((c) => c.call('devices.confirm', { requestId: request.requestId, accept }))
          }
        />
      )}
      <ul className="device-list">
        {devices?.map((device) => (
          <DeviceItem
            key={device.id}
            device={device}
            now={now}
            onRename={(name) => act((c) => c.call('devices.rename', { deviceId: device.id, name }), device)}
            onRevoke={() => act((c) => c.call('devices.revoke', { deviceId: device.id }), device)}
          />
        ))}
      </ul>
    </section>
  );
}
