'use client';
import type { DeviceRequest } from '../../lib/protocol/devices';
import type { Device } from '../../lib/protocol/rows';
import { shortTime } from '../../lib/client/shortTime';

interface DeviceRequestsProps {
  requests: DeviceRequest[];
  devices: Device[];
  now: number;
  onAnswer(request: DeviceRequest, accept: boolean): Promise<void>;
}

const nameOf = (devices: Device[], id: string | null) =>
  id === null ? 'The desktop' : (devices.find((d) => d.id === id)?.name ?? 'A removed device');

function whatIsAsked(request: DeviceRequest): string {
  return request.action === 'revoke' ? 'revoke' : 'rename';
}

/**
 * DEV-2: changes one device asked for about another. The device they are about confirms or
 * declines them here; every other device sees them waiting. Names are isolated (`<bdi>`), so a
 * name in another script direction cannot reorder the sentence around it.
 */
export function DeviceRequests({ requests, devices, now, onAnswer }: DeviceRequestsProps) {
  const current = devices.find((d) => d.current)?.id ?? null;
  if (requests.length === 0) return null;
  return (
    <ul className="device-requests" aria-label="Requests waiting for a device">
      {requests.map((request) => {
        const by = nameOf(devices, request.byDeviceId);
        const target = nameOf(devices, request.deviceId);
        const mine = request.deviceId === current;
        return (
          <li
            key={request.requestId}
            className={mine ? 'device-request mine' : 'device-request'}
            role={mine ? 'alertdialog' : undefined}
            aria-label={mine ? `Request from ${by}` : undefined}
          >
            {mine ? (
              <>
                <p className="grow">
                  <bdi className="device-name">{by}</bdi> asks to {whatIsAsked(request)} this device
                  {request.action === 'rename' && (
                    <>
                      {' '}
                      to “<bdi className="device-name">{request.name}</bdi>”
                    </>
                  )}
                  {request.action === 'revoke' && ': it would be signed out at once and need a new code to pair again'}.
                </p>
                <div className="row">
                  <button
                    className={request.action === 'revoke' ? 'danger' : 'primary'}
                    onClick={() => void onAnswer(request, true)}
                  >
                    {request.action === 'revoke' ? 'Sign this device out' : 'Rename this device'}
                  </button>
                  <button onClick={() => void onAnswer(request, false)}>Decline</button>
                </div>
              </>
            ) : (
              <p className="muted">
                Waiting for <bdi className="device-name">{target}</bdi> to confirm:{' '}
                <bdi className="device-name">{by}</bdi> asked to {whatIsAsked(request)} it
                {request.action === 'rename' && (
                  <>
                    {' '}
                    to “<bdi className="device-name">{request.name}</bdi>”
                  </>
                )}{' '}
                (until {shortTime(request.expiresAt, now)}).
              </p>
            )}
          </li>
        );
      })}
    </ul>
  );
}
