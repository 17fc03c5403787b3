/// The database layout, as ordered migrations. The file's `PRAGMA user_version` is the number of
/// migrations applied; a file at version N gets migrations N+1 … latest, in one transaction.
///
/// Never edit a shipped migration: devices in the field already ran it. Append a new one instead.
enum Schema {
    static let migrations: [[String]] = [
        version1,
        deliveryTargetsAndRejections,
    ]

    /// The version this code writes and understands.
    static var latestVersion: Int64 { Int64(migrations.count) }

    /// v1: check-ins and settings. STRICT tables make SQLite refuse values of the wrong type.
    static let version1 = [
        """
        CREATE TABLE check_ins (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36),
            -- Order of insertion, never reused: history order does not depend on clocks that jump.
            insertion_order INTEGER NOT NULL UNIQUE,
            wall_time_us INTEGER NOT NULL,
            uptime_us INTEGER NOT NULL,
            boot_id TEXT NOT NULL,
            wall_clock_synchronized INTEGER NOT NULL CHECK (wall_clock_synchronized IN (0, 1)),
            source TEXT NOT NULL CHECK (source IN ('button', 'cli')),
            -- NULL until the backend has acknowledged the check-in.
            uploaded_at_us INTEGER
        ) STRICT
        """,
        // The uploader reads pending check-ins oldest first; keep that cheap as history grows.
        """
        CREATE INDEX check_ins_pending ON check_ins (insertion_order) WHERE uploaded_at_us IS NULL
        """,
        """
        CREATE TABLE settings (
            singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
            interval_us INTEGER NOT NULL,
            reminder_us INTEGER NOT NULL,
            version INTEGER NOT NULL,
            applied_config_interval_us INTEGER,
            applied_config_reminder_us INTEGER,
            CHECK ((applied_config_interval_us IS NULL) = (applied_config_reminder_us IS NULL))
        ) STRICT
        """,
    ]

    /// v2 (docs/uplink.md, docs/healthchecks.md): a check-in the backend refused by id keeps the
    /// server's message and leaves the upload queue; and delivery state per further target (a
    /// healthchecks check), each on its own, so one target being down never holds up another.
    static let deliveryTargetsAndRejections = [
        """
        ALTER TABLE check_ins ADD COLUMN upload_rejection TEXT
        """,
        """
        CREATE TABLE delivery_targets (
            target TEXT PRIMARY KEY NOT NULL,
            -- Check-ins recorded before the target was first configured are not delivered to it.
            first_insertion_order INTEGER NOT NULL
        ) STRICT
        """,
        """
        CREATE TABLE deliveries (
            target TEXT NOT NULL REFERENCES delivery_targets (target),
            check_in_id TEXT NOT NULL REFERENCES check_ins (id),
            -- Exactly one of: delivered (the target answered 2xx) or refused for good with its message.
            delivered_at_us INTEGER,
            rejection TEXT,
            CHECK ((delivered_at_us IS NULL) <> (rejection IS NULL)),
            PRIMARY KEY (target, check_in_id)
        ) STRICT, WITHOUT ROWID
        """,
    ]
}
