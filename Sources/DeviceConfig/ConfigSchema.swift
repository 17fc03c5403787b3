import LEDLanguage

/// The tables and keys the config file may contain (besides `[leds.<name>]` and `[patterns.<indicator>]`).
enum ConfigSchema {
    static let tables: [(name: String, keys: [String])] = [
        ("check_in", ["interval", "reminder", "grace", "schedule", "windows", "time_zone",
                      "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]),
        ("button", ["debounce", "long_press", "line", "active_low", "bias"]),
        ("gpio", ["backend", "chip"]),
        ("leds", ["order"]),
        ("patterns", []),
        ("feedback", ["acknowledgement"]),
        ("store", ["path"]),
        ("control", ["socket"]),
        ("simulator", ["chatter_edges", "chatter_span", "terminal"]),
        ("log", ["level"]),
        ("developer", ["short_intervals", "trust_wall_clock"]),
        ("uplink", ["url", "token_file", "batch_size", "timeout", "retry_max", "heartbeat", "notifications_refresh",
                    "stale_after"]),
        ("alert", ["enabled", "cancel_window", "delivered_display"]),
        ("healthchecks", ["check_in_url", "heartbeat_url", "heartbeat", "timeout", "retry_max", "late_after", "alert_url",
                          "api_key_file", "api_url", "slug_prefix"]),
        ("mqtt", ["host", "port", "tls", "ca_file", "username", "password_file", "client_id", "keep_alive", "discovery_prefix",
                  "base_topic", "device_id", "device_name", "remote_check_in", "remote_away", "retry_max"]),
        ("away", ["press_ends"]),
        ("quiet_hours", ["from", "to"]),
        ("buzzer", ["line", "active_low", "reminder", "last_chance", "ping", "alert_cancel_window"]),
        ("power", ["mains_line", "mains_active_low", "low_battery_line", "low_battery_active_low"]),
        ("device", ["role", "name"]),
        ("dependents", ["poll_interval", "confirmation_window", "healthchecks_api_url", "healthchecks_read_key_file"]),
    ]

    /// Keys of each `[leds.<name>]` table.
    static let ledKeys = ["colour", "line", "active_low"]

    /// Keys of each `[dependents.<key>]` table: one source, a name and a heartbeat allowance.
    static let dependentKeys = ["name", "mqtt", "backend", "healthchecks", "heartbeat", "led"]

    static func keys(of table: String) -> [String]? {
        tables.first { $0.name == table }?.keys
    }

    static var tableNames: [String] { tables.map(\.name) }

    static var indicatorNames: [String] { Indicator.allCases.map(\.rawValue) }

    /// Environment variables that override keys, with the key each one overrides.
    static let overrides: [(variable: String, key: String)] = [
        ("LIFESIGNAL_STORE_PATH", "store.path"),
        ("LIFESIGNAL_SOCKET", "control.socket"),
        ("LIFESIGNAL_GPIO_BACKEND", "gpio.backend"),
        ("LIFESIGNAL_LOG_LEVEL", "log.level"),
    ]

    /// Unix socket paths must fit `sockaddr_un.sun_path` (108 bytes with the terminating NUL).
    static let maxSocketPathBytes = 107
}
