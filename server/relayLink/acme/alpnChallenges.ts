import tls from 'node:tls';

/** RFC 8737: what a TLS server answers to an `acme-tls/1` connection while a name is being validated. */
export interface AlpnChallenge {
  /** The self-signed certificate carrying the acmeIdentifier extension, PEM. */
  certPem: string;
  keyPem: string;
  /** Both, ready for a TLS handshake (SNICallback's answer). */
  secureContext: tls.SecureContext;
}

/** The challenge certificates of the authorizations pending now, by server name (lower case). */
export class AlpnChallenges {
  private readonly byName = new Map<string, AlpnChallenge>();

  put(serverName: string, keyPem: string, certPem: string): void {
    this.byName.set(serverName.toLowerCase(), {
      keyPem,
      certPem,
      secureContext: tls.createSecureContext({ key: keyPem, cert: certPem }),
    });
  }

  remove(serverName: string): void {
    this.byName.delete(serverName.toLowerCase());
  }

  for(serverName: string): AlpnChallenge | null {
    return this.byName.get(serverName.toLowerCase()) ?? null;
  }
}
