-- The application's own table (SQLite and PostgreSQL alike). The ledger's tables are created by
-- the starter's migrations beside it.
CREATE TABLE IF NOT EXISTS app_notes (
  id VARCHAR(36) PRIMARY KEY,
  tenant VARCHAR(200) NOT NULL,
  title VARCHAR(200) NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
