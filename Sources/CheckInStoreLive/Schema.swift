/// The database layout, as ordered migrations. The file's `PRAGMA user_version` is the number of
/// migrations applied; a file at version N gets migrations N+1 … latest, in one transaction.
///
/// Never edit a shipped migration: devices in the field already ran it. Append a new one instead.
enum Schema {
    static let migrations: [[String]] = [
        version1,
        notificationsVersion,
        pingsVersion,
        alertsVersion,
        deliveryTargetsAndRejections,
        alertDeliveryTargets,
        mqtt,
        dailyLife,
        dependents,
        removedWatchers,
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

    /// Notifications from the backend, the person's changes to them waiting for the backend (the
    /// outbox) and the remembered filter with the sync cursor.
    static let notificationsVersion = [
        """
        CREATE TABLE notifications (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0),
            -- Order of arrival on the device, never reused: "mark all read" covers what had arrived.
            local_order INTEGER NOT NULL UNIQUE,
            type TEXT NOT NULL CHECK (type IN ('alert', 'ping', 'role', 'added', 'removed', 'checkIn')),
            created_at_us INTEGER NOT NULL,
            is_read INTEGER NOT NULL CHECK (is_read IN (0, 1)),
            -- Cleared on the device and not yet confirmed by the backend: hidden, kept until then.
            cleared INTEGER NOT NULL DEFAULT 0 CHECK (cleared IN (0, 1)),
            title TEXT NOT NULL,
            body TEXT,
            related_contact_id TEXT,
            related_ping_id TEXT,
            related_alert_id TEXT
        ) STRICT
        """,
        """
        CREATE TABLE notification_changes (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) > 0),
            queue_order INTEGER NOT NULL UNIQUE,
            operation TEXT NOT NULL CHECK (operation IN ('markRead', 'markAllRead', 'clear', 'clearAll')),
            notification_id TEXT CHECK ((notification_id IS NULL) = (operation IN ('markAllRead', 'clearAll'))),
            at_us INTEGER NOT NULL,
            -- markAllRead / clearAll: the backend's cursor and the device's arrival order at the time.
            through_cursor TEXT,
            through_local_order INTEGER,
            -- NULL until the backend has acknowledged the change.
            synced_at_us INTEGER
        ) STRICT
        """,
        """
        CREATE INDEX notification_changes_pending ON notification_changes (queue_order) WHERE synced_at_us IS NULL
        """,
        """
        CREATE TABLE notification_settings (
            singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
            filter_type TEXT CHECK (filter_type IN ('alert', 'ping', 'role', 'added', 'removed', 'checkIn')),
            unread_only INTEGER NOT NULL DEFAULT 0 CHECK (unread_only IN (0, 1)),
            cursor TEXT
        ) STRICT
        """,
        """
        INSERT INTO notification_settings (singleton) VALUES (1)
        """,
    ]

    /// Responders' pings and the user's answers to them (issue 4, "Pings").
    static let pingsVersion = [
        """
        CREATE TABLE pings (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 200),
            -- Order of arrival, never reused.
            arrival_order INTEGER NOT NULL UNIQUE,
            responder_id TEXT NOT NULL,
            responder_name TEXT NOT NULL,
            created_at TEXT NOT NULL,
            -- NULL while pending; the check-in whose press answered it.
            answered_by_check_in TEXT CHECK (answered_by_check_in IS NULL OR length(answered_by_check_in) = 36)
        ) STRICT
        """,
        """
        CREATE TABLE ping_responses (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36),
            insertion_order INTEGER NOT NULL UNIQUE,
            ping_id TEXT NOT NULL,
            check_in_id TEXT NOT NULL CHECK (length(check_in_id) = 36),
            wall_time_us INTEGER NOT NULL,
            -- NULL until the backend has acknowledged the response.
            uploaded_at_us INTEGER
        ) STRICT
        """,
        """
        CREATE INDEX ping_responses_pending ON ping_responses (insertion_order) WHERE uploaded_at_us IS NULL
        """,
    ]

    /// Help alerts (long press), queued for upload like check-ins.
    static let alertsVersion = [
        """
        CREATE TABLE alerts (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36),
            insertion_order INTEGER NOT NULL UNIQUE,
            wall_time_us INTEGER NOT NULL,
            uptime_us INTEGER NOT NULL,
            boot_id TEXT NOT NULL,
            wall_clock_synchronized INTEGER NOT NULL CHECK (wall_clock_synchronized IN (0, 1)),
            source TEXT NOT NULL CHECK (source IN ('button', 'cli')),
            -- NULL until the backend has acknowledged the alert.
            uploaded_at_us INTEGER
        ) STRICT
        """,
    ]

    /// Refusals and further targets (docs/uplink.md, docs/healthchecks.md): a check-in the backend refused by id keeps the
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

    /// Help alerts to further targets (a healthchecks alert check), each with its own delivery
    /// state like check-ins' (docs/healthchecks.md): an alert is sent to each target once, and the
    /// backend's `alerts.uploaded_at_us` stays the backend's.
    static let alertDeliveryTargets = [
        """
        CREATE TABLE alert_delivery_targets (
            target TEXT PRIMARY KEY NOT NULL,
            -- Alerts before this were delivered elsewhere before the target was configured: not sent again.
            first_insertion_order INTEGER NOT NULL
        ) STRICT
        """,
        """
        CREATE TABLE alert_deliveries (
            target TEXT NOT NULL REFERENCES alert_delivery_targets (target),
            alert_id TEXT NOT NULL REFERENCES alerts (id),
            -- Exactly one of: delivered (the target answered 2xx) or refused for good with its message.
            delivered_at_us INTEGER,
            rejection TEXT,
            CHECK ((delivered_at_us IS NULL) <> (rejection IS NULL)),
            PRIMARY KEY (target, alert_id)
        ) STRICT, WITHOUT ROWID
        """,
    ]

    /// MQTT (docs/mqtt.md): check-ins an automation asked for over MQTT keep the source `mqtt`
    /// (SQLite cannot change a CHECK constraint in place, so the table is rebuilt with the same
    /// columns and rows, as its documentation prescribes), and the events waiting for the broker.
    static let mqtt = [
        """
        CREATE TABLE check_ins_rebuilt (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36),
            insertion_order INTEGER NOT NULL UNIQUE,
            wall_time_us INTEGER NOT NULL,
            uptime_us INTEGER NOT NULL,
            boot_id TEXT NOT NULL,
            wall_clock_synchronized INTEGER NOT NULL CHECK (wall_clock_synchronized IN (0, 1)),
            source TEXT NOT NULL CHECK (source IN ('button', 'cli', 'mqtt')),
            uploaded_at_us INTEGER,
            upload_rejection TEXT
        ) STRICT
        """,
        """
        INSERT INTO check_ins_rebuilt (id, insertion_order, wall_time_us, uptime_us, boot_id, wall_clock_synchronized,
                                       source, uploaded_at_us, upload_rejection)
        SELECT id, insertion_order, wall_time_us, uptime_us, boot_id, wall_clock_synchronized, source, uploaded_at_us,
               upload_rejection
        FROM check_ins
        """,
        """
        DROP TABLE check_ins
        """,
        """
        ALTER TABLE check_ins_rebuilt RENAME TO check_ins
        """,
        """
        CREATE INDEX check_ins_pending ON check_ins (insertion_order) WHERE uploaded_at_us IS NULL
        """,
        // Events for the broker, in the order they happened; a row goes once the broker has it.
        """
        CREATE TABLE mqtt_events (
            sequence INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE CHECK (length(id) = 36),
            entity TEXT NOT NULL CHECK (length(entity) BETWEEN 1 AND 64),
            payload TEXT NOT NULL,
            at_us INTEGER NOT NULL
        ) STRICT
        """,
    ]

    /// v8, daily life (docs/daily-life.md): away mode in the synced settings and its periods (so a
    /// restart keeps it and `history` shows it), the device's own events with a delivery mark per
    /// target, and the mark that tells a clean stop from an unexpected one.
    static let dailyLife = [
        """
        ALTER TABLE settings ADD COLUMN away_since_us INTEGER
        """,
        """
        ALTER TABLE settings ADD COLUMN away_until_us INTEGER
        """,
        """
        CREATE TABLE away_periods (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36),
            insertion_order INTEGER NOT NULL UNIQUE,
            start_wall_us INTEGER NOT NULL,
            start_uptime_us INTEGER NOT NULL,
            start_boot_id TEXT NOT NULL,
            start_synchronized INTEGER NOT NULL CHECK (start_synchronized IN (0, 1)),
            duration_us INTEGER NOT NULL CHECK (duration_us > 0),
            source TEXT NOT NULL CHECK (source IN ('cli', 'backend', 'mqtt')),
            -- All NULL while it runs; the reading when it ended, and why.
            end_wall_us INTEGER,
            end_uptime_us INTEGER,
            end_boot_id TEXT,
            end_synchronized INTEGER CHECK (end_synchronized IN (0, 1)),
            end_reason TEXT CHECK (end_reason IN ('expired', 'cli', 'press', 'backend', 'mqtt', 'replaced')),
            CHECK ((end_reason IS NULL) = (end_wall_us IS NULL))
        ) STRICT
        """,
        """
        CREATE TABLE power_events (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36),
            insertion_order INTEGER NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('on_battery', 'power_restored', 'low_battery', 'unexpected_restart')),
            detail TEXT NOT NULL,
            wall_time_us INTEGER NOT NULL,
            uptime_us INTEGER NOT NULL,
            boot_id TEXT NOT NULL,
            wall_clock_synchronized INTEGER NOT NULL CHECK (wall_clock_synchronized IN (0, 1)),
            -- NULL until the backend, or the healthchecks check-in check, has it.
            uploaded_at_us INTEGER,
            healthchecks_at_us INTEGER
        ) STRICT
        """,
        """
        CREATE TABLE run_mark (
            singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
            started_wall_us INTEGER NOT NULL,
            started_uptime_us INTEGER NOT NULL,
            started_boot_id TEXT NOT NULL,
            started_synchronized INTEGER NOT NULL CHECK (started_synchronized IN (0, 1)),
            stopped_cleanly INTEGER NOT NULL CHECK (stopped_cleanly IN (0, 1))
        ) STRICT
        """,
    ]

    /// v9, a watcher's dependents (docs/dependents.md): those added by a pairing code (the
    /// configured ones live in the config), and the list's sort option.
    static let dependents = [
        """
        CREATE TABLE dependents (
            name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE CHECK (length(name) BETWEEN 1 AND 64),
            source TEXT NOT NULL CHECK (source IN ('mqtt', 'backend', 'healthchecks')),
            address TEXT NOT NULL CHECK (length(address) BETWEEN 1 AND 256),
            heartbeat_s INTEGER NOT NULL CHECK (heartbeat_s > 0),
            insertion_order INTEGER NOT NULL UNIQUE,
            UNIQUE (source, address)
        ) STRICT
        """,
        """
        CREATE TABLE dependents_view (
            singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
            sort_option TEXT NOT NULL CHECK (sort_option IN ('status', 'name', 'deadline'))
        ) STRICT
        """,
    ]

    /// v10, the watchers the person removed from their responders (docs/responders.md): their
    /// pings are refused until the person allows them again.
    static let removedWatchers = [
        """
        CREATE TABLE removed_watchers (
            id TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 64),
            name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
            removed_at_us INTEGER NOT NULL
        ) STRICT
        """,
    ]
}
