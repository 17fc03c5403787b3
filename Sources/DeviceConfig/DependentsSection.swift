public import CheckInModels
import ConfigFile
public import LEDLanguage

/// `[device]`: whose device this is. A person's checks in; a watcher shows the people it looks
/// after (docs/dependents.md); both does both.
public struct DeviceRoleConfiguration: Hashable, Sendable {
    public var role: DeviceRole
    /// How a watcher signs its pings and "I'm on it" ("Anna"); nil = the host's name.
    public var name: String?

    public init(role: DeviceRole = .person, name: String? = nil) {
        self.role = role
        self.name = name
    }
}

/// `[dependents]` and each `[dependents.<key>]`: the people a watcher looks after that are in the
/// config (more are added with `lifesignalctl dependents add CODE`), and how their sources are asked.
public struct DependentsConfiguration: Hashable, Sendable {
    /// Each `[dependents.<key>]`, in the file's order.
    public var entries: [DependentEntry]
    /// How often the backend and healthchecks are asked (MQTT peers need no asking).
    public var pollInterval: Duration
    /// How long the watcher's "ping everyone" press waits for a second press that cancels it.
    public var confirmationWindow: Duration
    /// healthchecks for dependents: the site, and a read-only API key (never the device's own
    /// read-write key: a watcher only reads).
    public var healthchecksAPIURL: String
    public var healthchecksReadKeyFile: String?

    public init(entries: [DependentEntry] = [], pollInterval: Duration = .seconds(60), confirmationWindow: Duration = .seconds(5),
                healthchecksAPIURL: String = HealthchecksManagement.defaultAPIURL, healthchecksReadKeyFile: String? = nil) {
        self.entries = entries
        self.pollInterval = pollInterval
        self.confirmationWindow = confirmationWindow
        self.healthchecksAPIURL = healthchecksAPIURL
        self.healthchecksReadKeyFile = healthchecksReadKeyFile
    }

    static let pollIntervalRange = Duration.seconds(10) ... .seconds(3600)
    /// `[developer] short_intervals`: end-to-end tests and demos poll every second.
    static let developerPollIntervalRange = Duration.seconds(1) ... .seconds(3600)
    static let confirmationWindowRange = Duration.seconds(2) ... .seconds(30)
    static let heartbeatRange = Duration.seconds(2) ... .seconds(7 * 86_400)
    static let sourceKeys = ["mqtt", "backend", "healthchecks"]
}

extension ConfigLoader {
    mutating func readRole(_ table: ConfigTable?) -> DeviceRoleConfiguration {
        DeviceRoleConfiguration(
            role: value(table, "device", "role", .person, ValueRules.choice(DeviceRole.self)),
            name: optionalValue(table, "device", "name", ValueRules.personName("the name this device signs its pings with")))
    }

    /// A watcher with no way to hear of anyone would show "unknown" for ever: refused here.
    mutating func checkWatcherHasASource(_ table: ConfigTable?, _ configuration: DeviceConfiguration) {
        guard configuration.device.role.watches, configuration.mqtt == nil, configuration.uplink == nil,
              configuration.dependents.healthchecksReadKeyFile == nil, let entry = table?["role"] else { return }
        report("device.role", atEntry: entry, "a watcher needs a way to hear of its dependents: [mqtt] (their devices on "
               + "the same broker), [uplink] (the LifeSignal backend) or [dependents] healthchecks_read_key_file")
    }

    /// `[dependents]` and its `[dependents.<key>]` tables; `sources` says which sources the
    /// device has, so an entry no source can reach is refused here rather than silent at run time.
    mutating func readDependents(_ table: ConfigTable?, entries tables: [(key: String, table: ConfigTable)], role: DeviceRole,
                                 hasMQTT: Bool, hasUplink: Bool, shortIntervals: Bool, language: LEDLanguage) -> DependentsConfiguration {
        var configuration = DependentsConfiguration(
            pollInterval: value(table, "dependents", "poll_interval", .seconds(60), ValueRules.duration(
                in: shortIntervals ? DependentsConfiguration.developerPollIntervalRange : DependentsConfiguration.pollIntervalRange)),
            confirmationWindow: value(table, "dependents", "confirmation_window", .seconds(5),
                                      ValueRules.duration(in: DependentsConfiguration.confirmationWindowRange)),
            healthchecksAPIURL: value(table, "dependents", "healthchecks_api_url", HealthchecksManagement.defaultAPIURL,
                                      ValueRules.secretBearingURL("the healthchecks site", example: HealthchecksManagement.defaultAPIURL,
                                                                  secret: "the read-only API key")),
            healthchecksReadKeyFile: optionalValue(table, "dependents", "healthchecks_read_key_file",
                                                   ValueRules.absolutePath("the healthchecks read-only API key file")))
        if !role.watches, let first = table?.entries.first ?? tables.first?.table.entries.first {
            report("device.role", atEntry: first, "[dependents] is for a watcher, and this device's [device] role is \"person\"; "
                   + "set role = \"watcher\" (or \"both\") under [device], or remove the dependents")
        }
        for (key, entryTable) in tables {
            if var entry = readDependent(key, entryTable, configuration, hasMQTT: hasMQTT, hasUplink: hasUplink) {
                entry.led = readLight(key, entryTable, language: language, taken: configuration.entries.compactMap(\.led))
                if configuration.entries.contains(where: { $0.name.lowercased() == entry.name.lowercased() }),
                   let first = entryTable.entries.first {
                    report("dependents.\(key).name", atEntry: first, "another dependent is also called \(entry.name); names must differ")
                } else {
                    configuration.entries.append(entry)
                }
            }
        }
        return configuration
    }

    private mutating func readDependent(_ key: String, _ table: ConfigTable, _ configuration: DependentsConfiguration,
                                        hasMQTT: Bool, hasUplink: Bool) -> DependentEntry? {
        let prefix = "dependents." + key
        let name = value(table, prefix, "name", key, ValueRules.personName("the dependent's name"))
        let heartbeat = value(table, prefix, "heartbeat", DependentEntry.defaultHeartbeat,
                              ValueRules.duration(in: DependentsConfiguration.heartbeatRange))
        let given = DependentsConfiguration.sourceKeys.filter { table[$0] != nil }
        guard given.count == 1, let kind = given.first, let entry = table[kind] else {
            let place = table.entries.first
            let message = given.isEmpty
                ? "[\(prefix)] needs one source: mqtt = \"<their base topic>\", backend = \"<their device id>\" or "
                    + "healthchecks = \"<their check's slug or UUID>\""
                : "[\(prefix)] has \(given.joined(separator: " and ")); a dependent has exactly one source"
            if let place { report(prefix, atEntry: place, message) } else { report(prefix, atTable: table, message) }
            return nil
        }
        let address: String?
        switch kind {
        case "mqtt":
            address = optionalValue(table, prefix, "mqtt", ValueRules.topic("their device's base topic", example: "lifesignal/0123456789ab"))
            if !hasMQTT { report(prefix + ".mqtt", atEntry: entry, "a dependent over MQTT needs this device's [mqtt] broker; add [mqtt]") }
        case "backend":
            address = optionalValue(table, prefix, "backend", ValueRules.identifier("their device's id on the backend"))
            if !hasUplink { report(prefix + ".backend", atEntry: entry, "a dependent on the backend needs this device's [uplink]; add [uplink]") }
        default:
            address = optionalValue(table, prefix, "healthchecks", ValueRules.identifier("their check's slug or UUID"))
            if configuration.healthchecksReadKeyFile == nil {
                report(prefix + ".healthchecks", atEntry: entry,
                       "a dependent on healthchecks needs [dependents] healthchecks_read_key_file (a read-only API key)")
            }
        }
        guard let address, let source = DependentSource(kind: kind, address: address) else { return nil }
        return DependentEntry(name: name, source: source, heartbeat: heartbeat, fromConfig: true)
    }
}

extension ConfigLoader {
    /// `[dependents.<key>] led`: an LED of `[leds] order` that shows this dependent alone, so no
    /// indicator's pattern may use it and no other dependent may have it.
    private mutating func readLight(_ key: String, _ table: ConfigTable, language: LEDLanguage, taken: [String]) -> String? {
        guard let entry = table["led"],
              let name = optionalValue(table, "dependents." + key, "led", ValueRules.text("an LED name from [leds] order"))
        else { return nil }
        let names = language.leds.map(\.name)
        guard names.contains(name) else {
            report("dependents.\(key).led", atEntry: entry, "no LED named \(TerminalText.quoted(name)) in leds.order ("
                   + names.joined(separator: ", ") + "); add it to leds.order with a [leds.\(name)] line")
            return nil
        }
        let users = Indicator.allCases.filter { language.pattern(for: $0).waveform(for: LED(name: name, colour: "")) != .off }
        if let first = users.first {
            report("dependents.\(key).led", atEntry: entry, "the LED \(name) is also used by patterns.\(first.rawValue)"
                   + (users.count > 1 ? " and \(users.count - 1) more" : "") + "; a dependent's LED shows that dependent alone: "
                   + "give it an LED no pattern uses")
            return nil
        }
        guard !taken.contains(name) else {
            report("dependents.\(key).led", atEntry: entry, "the LED \(name) already shows another dependent; each needs its own")
            return nil
        }
        return name
    }
}

extension ValueRules {
    /// A person's name as it is shown and sent: text without control characters, at most 64 bytes.
    static func personName(_ what: String) -> Rule<String> {
        { value in
            text(what)(value).flatMap { name in
                name.utf8.count <= 64 ? .success(name) : .failure(Refusal("the name is \(name.utf8.count) bytes long; at most 64"))
            }
        }
    }
}
