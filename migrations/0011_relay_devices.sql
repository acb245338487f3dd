-- Devices paired through the relay (RLY-2) prove themselves with an X25519 key pair instead of a
-- token: the raw 32-byte public key is their credential. Unique among the devices that have one.
ALTER TABLE devices ADD COLUMN public_key BLOB;
CREATE UNIQUE INDEX devices_by_public_key ON devices (public_key) WHERE public_key IS NOT NULL;
