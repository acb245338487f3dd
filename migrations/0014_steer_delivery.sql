-- A message that steers a running turn (ACC-6) is delivered only once the agent passed it to its
-- model: `sending` while the agent is asked, `accepted` once it acknowledged it (stored before the
-- row says so), `delivered` once the agent's own events show the model was sent it, `lost` when the
-- turn ended or the runtime stopped first (the row says "not delivered" and offers Send again).
ALTER TABLE runs ADD COLUMN steer_state TEXT CHECK (steer_state IN ('sending', 'accepted', 'delivered', 'lost'));
