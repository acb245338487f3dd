-- PWA-7: a declarative push names the address a tap opens in full, so each subscription keeps the
-- app origin it was made on (the name, 127.0.0.1, a public or relay name). Older ones have none.
ALTER TABLE push_subscriptions ADD COLUMN app_origin TEXT NOT NULL DEFAULT '';
