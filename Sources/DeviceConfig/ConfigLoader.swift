import CheckInModels
import ConfigFile
import LEDLanguage

extension DeviceConfiguration {
    /// Parses and validates a config file, then applies the environment.
    ///
    /// - Parameters:
    ///   - text: the file's contents, or nil when there is no file (every key takes its default).
    ///   - path: the file's path, used only in messages.
    ///   - environment: the process environment; `LIFESIGNAL_STORE_PATH`, `LIFESIGNAL_SOCKET`,
    ///     `LIFESIGNAL_GPIO_BACKEND` and `LIFESIGNAL_LOG_LEVEL` override their keys (empty counts as
    ///     unset), and `STATE_DIRECTORY`, `XDG_STATE_HOME`, `HOME`, `RUNTIME_DIRECTORY`,
    ///     `XDG_RUNTIME_DIR`, `USER`, `LOGNAME`, `UID` choose the default paths.
    /// - Returns: the configuration, or every problem found (a syntax error stops at the first).
    public static func load(
        text: String?, path: String, environment: [String: String]
    ) -> Result<DeviceConfiguration, ConfigErrors> {
        var loader = ConfigLoader(path: path, environment: environment)
        return loader.load(text)
    }
}

/// One load: reads every section, collecting problems instead of stopping at the first.
struct ConfigLoader {
    let path: String
    let environment: [String: String]
    private(set) var problems: [ConfigProblem] = []

    init(path: String, environment: [String: String]) {
        self.path = path
        self.environment = environment
    }

    mutating func load(_ text: String?) -> Result<DeviceConfiguration, ConfigErrors> {
        var document = ConfigDocument(tables: [])
        if let text {
            do {
                document = try ConfigDocument.parse(text)
            } catch {
                report(nil, line: error.line, column: error.column, error.message)
                return .failure(ConfigErrors(problems))
            }
        }
        let sections = classify(document)
        let configuration = read(sections)
        // File problems in file order, then the environment's.
        let ordered = problems.enumerated().sorted { lhs, rhs in
            switch (lhs.element.source, rhs.element.source) {
            case let (.file(_, l1, c1), .file(_, l2, c2)):
                (l1, c1, lhs.offset) < (l2, c2, rhs.offset)
            case (.file, .environment): true
            case (.environment, .file): false
            case (.environment, .environment): lhs.offset < rhs.offset
            }
        }.map(\.element)
        guard ordered.isEmpty, let configuration else {
            return .failure(ConfigErrors(ordered))
        }
        return .success(configuration)
    }

    // MARK: Reporting

    mutating func report(_ key: String?, line: Int, column: Int, _ message: String) {
        problems.append(ConfigProblem(source: .file(path: path, line: line, column: column), key: key, message: message))
    }

    mutating func report(_ key: String, at value: ConfigValue, _ message: String) {
        report(key, line: value.line, column: value.column, message)
    }

    mutating func report(_ key: String, atEntry entry: ConfigEntry, _ message: String) {
        report(key, line: entry.line, column: entry.column, message)
    }

    mutating func report(_ key: String, atTable table: ConfigTable, _ message: String) {
        report(key, line: table.line, column: table.column, message)
    }

    mutating func reportEnvironment(_ variable: String, key: String, _ message: String) {
        problems.append(ConfigProblem(source: .environment(variable: variable), key: key, message: message))
    }

    /// Reads `key` from `table` with `rule`; nil (and a problem) when refused, `fallback` when absent.
    mutating func value<T>(
        _ table: ConfigTable?, _ tableName: String, _ key: String, _ fallback: T, _ rule: ValueRules.Rule<T>
    ) -> T {
        optionalValue(table, tableName, key, rule) ?? fallback
    }

    /// Reads `key` from `table`: nil when absent or refused (refusals are reported).
    mutating func optionalValue<T>(
        _ table: ConfigTable?, _ tableName: String, _ key: String, _ rule: ValueRules.Rule<T>
    ) -> T? {
        guard let entry = table?[key] else { return nil }
        switch rule(entry.value) {
        case .success(let value):
            return value
        case .failure(let refusal):
            report(tableName + "." + key, at: entry.value, refusal.message)
            return nil
        }
    }

    // MARK: Tables

    /// The file's tables sorted by role; unknown tables and keys are reported here.
    struct Sections {
        var fixed: [String: ConfigTable] = [:]
        var leds: [String: ConfigTable] = [:]
        var patterns: [Indicator: ConfigTable] = [:]
        /// `[dependents.<key>]`, in the file's order.
        var dependents: [(key: String, table: ConfigTable)] = []
    }

    private mutating func classify(_ document: ConfigDocument) -> Sections {
        var sections = Sections()
        for table in document.tables {
            let name = table.name
            switch table.path.count {
            case 0:
                for entry in table.entries { reportKeyOutsideTables(entry) }
            case 1:
                guard let keys = ConfigSchema.keys(of: table.path[0]) else {
                    report(name, atTable: table, "unknown table [\(name)]; known tables are "
                           + ConfigSchema.tableNames.joined(separator: ", ")
                           + Suggestion.hint(for: table.path[0], among: ConfigSchema.tableNames))
                    continue
                }
                sections.fixed[table.path[0]] = table
                if table.path[0] == "patterns" {
                    for entry in table.entries {
                        report("patterns." + ConfigTable.displayKey(entry.key), atEntry: entry,
                               "patterns go under a [patterns.<indicator>] header, one key per LED; indicators are "
                                   + ConfigSchema.indicatorNames.joined(separator: ", "))
                    }
                } else {
                    reportUnknownKeys(table, known: keys)
                }
            case 2 where table.path[0] == "leds":
                sections.leds[table.path[1]] = table  // checked against leds.order later
                reportUnknownKeys(table, known: ConfigSchema.ledKeys)
            case 2 where table.path[0] == "dependents":
                sections.dependents.append((table.path[1], table))
                reportUnknownKeys(table, known: ConfigSchema.dependentKeys)
            case 2 where table.path[0] == "patterns":
                guard let indicator = Indicator(rawValue: table.path[1]) else {
                    report(name, atTable: table, "unknown indicator '\(table.path[1])'; indicators are "
                           + ConfigSchema.indicatorNames.joined(separator: ", ")
                           + Suggestion.hint(for: table.path[1], among: ConfigSchema.indicatorNames))
                    continue
                }
                sections.patterns[indicator] = table
            default:
                let known = ConfigSchema.tableNames + ConfigSchema.indicatorNames.map { "patterns." + $0 }
                report(name, atTable: table, "unknown table [\(name)]; tables are "
                       + ConfigSchema.tableNames.joined(separator: ", ")
                       + ", leds.<LED name>, patterns.<indicator> and dependents.<name>"
                       + Suggestion.hint(for: name, among: known))
            }
        }
        return sections
    }

    private mutating func reportUnknownKeys(_ table: ConfigTable, known: [String]) {
        for entry in table.entries where !known.contains(entry.key) {
            let key = table.name + "." + ConfigTable.displayKey(entry.key)
            report(key, atEntry: entry, "unknown key; [\(table.name)] may contain "
                   + (known.isEmpty ? "no keys" : known.joined(separator: ", "))
                   + Suggestion.hint(for: entry.key, among: known))
        }
    }

    /// A key before the first header: say which table it probably belongs to.
    private mutating func reportKeyOutsideTables(_ entry: ConfigEntry) {
        let owner = ConfigSchema.tables.first { $0.keys.contains(entry.key) }?.name
        let allKeys = ConfigSchema.tables.flatMap { table in table.keys.map { table.name + "." + $0 } }
        let keys = ConfigSchema.tables.flatMap(\.keys)
        var message = "every key must be under a [table] header"
        if let owner {
            message += "; put it under [\(owner)]"
        } else if let close = Suggestion.closest(to: entry.key, among: keys),
                  let full = allKeys.first(where: { $0.hasSuffix("." + close) }) {
            message += "; did you mean '\(full)'?"
        }
        report(ConfigTable.displayKey(entry.key), atEntry: entry, message)
    }

    // MARK: Sections

    private mutating func read(_ sections: Sections) -> DeviceConfiguration? {
        let table = { (name: String) in sections.fixed[name] }

        let shortIntervals = value(table("developer"), "developer", "short_intervals", false, ValueRules.bool)
        let settings = readCheckIn(table("check_in"), policy: shortIntervals ? .developer : .standard)

        let buttonTable = table("button")
        let button = ButtonConfiguration(
            debounce: value(buttonTable, "button", "debounce", .milliseconds(30),
                            ValueRules.duration(in: .zero ... .seconds(1))),
            longPress: value(buttonTable, "button", "long_press", .seconds(3),
                             ValueRules.duration(in: .milliseconds(500) ... .seconds(30))),
            line: value(buttonTable, "button", "line", .name("GPIO17"), ValueRules.gpioLine),
            activeLow: value(buttonTable, "button", "active_low", true, ValueRules.bool),
            bias: value(buttonTable, "button", "bias", .pullUp, ValueRules.choice(ButtonConfiguration.Bias.self))
        )
        // A hold shorter than the debounce could never be seen as a long press.
        if button.longPress <= button.debounce, let entry = buttonTable?["long_press"] ?? buttonTable?["debounce"] {
            report("button." + entry.key, at: entry.value,
                   "long_press \(DurationText.format(button.longPress)) must be longer than debounce "
                       + DurationText.format(button.debounce))
        }

        var gpio = GPIOConfiguration(
            backend: value(table("gpio"), "gpio", "backend", .simulated, ValueRules.choice(GPIOConfiguration.Backend.self)),
            chip: value(table("gpio"), "gpio", "chip", "gpiochip0",
                        ValueRules.text("a chip path, name or label such as \"gpiochip0\""))
        )

        let (leds, language) = readLEDs(sections, buttonLine: button.line, buttonEntry: buttonTable?["line"])

        let acknowledgement = value(table("feedback"), "feedback", "acknowledgement", .milliseconds(1500),
                                    ValueRules.duration(in: .milliseconds(200) ... .seconds(10)))

        let simulatorTable = table("simulator")
        let simulator = SimulatorConfiguration(
            chatterEdges: value(simulatorTable, "simulator", "chatter_edges", 20, ValueRules.integer(in: 0...200)),
            chatterSpan: value(simulatorTable, "simulator", "chatter_span", .milliseconds(5),
                               ValueRules.duration(in: .zero ... .seconds(1))),
            terminal: value(simulatorTable, "simulator", "terminal", .auto,
                            ValueRules.choice(SimulatorConfiguration.Terminal.self))
        )

        var logLevel = value(table("log"), "log", "level", .info, ValueRules.choice(LogLevel.self))
        let uplink = readUplink(table("uplink"))
        let healthchecks = readHealthchecks(table("healthchecks"))
        let alert = readAlert(table("alert"), canDeliver: uplink != nil || healthchecks?.hasAlertCheck == true)
        let mqtt = readMQTT(table("mqtt"))

        let fileStorePath = optionalValue(table("store"), "store", "path",
                                          ValueRules.absolutePath("the store's database file"))
        let fileSocket = optionalValue(table("control"), "control", "socket",
                                       ValueRules.absolutePath("the control socket's path",
                                                               maxBytes: ConfigSchema.maxSocketPathBytes))

        // Environment overrides win over the file.
        let storePath = overridden("LIFESIGNAL_STORE_PATH", "store.path", ValueRules.absolutePath("the store's database file"))
            ?? fileStorePath ?? DeviceConfiguration.defaultStorePath(environment: environment)
        let socket = overridden("LIFESIGNAL_SOCKET", "control.socket",
                                ValueRules.absolutePath("the control socket's path", maxBytes: ConfigSchema.maxSocketPathBytes))
            ?? fileSocket ?? DeviceConfiguration.defaultControlSocket(environment: environment)
        if let backend = overridden("LIFESIGNAL_GPIO_BACKEND", "gpio.backend", ValueRules.choice(GPIOConfiguration.Backend.self)) {
            gpio.backend = backend
        }
        if let level = overridden("LIFESIGNAL_LOG_LEVEL", "log.level", ValueRules.choice(LogLevel.self)) {
            logLevel = level
        }
        if storePath == nil {
            reportEnvironment("HOME", key: "store.path",
                              "cannot choose the store's location: none of STATE_DIRECTORY, XDG_STATE_HOME or HOME "
                                  + "holds an absolute path; set [store] path or LIFESIGNAL_STORE_PATH")
        }

        guard let storePath, let leds, let language else { return nil }
        var configuration = DeviceConfiguration(
            storePath: storePath,
            controlSocket: socket,
            configuredSettings: settings,
            developerShortIntervals: shortIntervals,
            button: button,
            gpio: gpio,
            leds: leds,
            ledLanguage: language,
            acknowledgement: acknowledgement,
            simulator: simulator,
            logLevel: logLevel,
            uplink: uplink,
            alert: alert,
            healthchecks: healthchecks
        )
        readDailyLife(sections, into: &configuration,
                      takenLines: [("button.line", button.line)] + leds.map { ("leds.\($0.led.name).line", $0.line) })
        configuration.mqtt = mqtt
        configuration.device = readRole(table("device"))
        configuration.dependents = readDependents(table("dependents"), entries: sections.dependents,
                                                  role: configuration.device.role, hasMQTT: mqtt != nil, hasUplink: uplink != nil,
                                                  shortIntervals: shortIntervals, language: language)
        checkWatcherHasASource(table("device"), configuration)
        return configuration
    }

    /// An environment override, checked with the key's own rule; empty means unset.
    private mutating func overridden<T>(_ variable: String, _ key: String, _ rule: ValueRules.Rule<T>) -> T? {
        guard let text = environment[variable], !text.isEmpty else { return nil }
        switch rule(ConfigValue(.string(text), line: 0, column: 0)) {
        case .success(let value):
            return value
        case .failure(let refusal):
            reportEnvironment(variable, key: key, refusal.message + " (this variable overrides \(key))")
            return nil
        }
    }

    /// `[check_in]`: nil when neither key is set; a missing half takes `CheckInSettings.default`'s value.
    private mutating func readCheckIn(_ table: ConfigTable?, policy: SettingsPolicy) -> CheckInSettings? {
        let intervalEntry = table?["interval"]
        let reminderEntry = table?["reminder"]
        guard intervalEntry != nil || reminderEntry != nil else { return nil }
        let interval = optionalValue(table, "check_in", "interval", ValueRules.duration(in: nil))
        let reminder = optionalValue(table, "check_in", "reminder", ValueRules.duration(in: nil))
        // Only validate the pair when every key that is present was readable.
        guard intervalEntry == nil || interval != nil, reminderEntry == nil || reminder != nil else { return nil }
        let settings = CheckInSettings(interval: interval ?? CheckInSettings.default.interval,
                                       reminder: reminder ?? CheckInSettings.default.reminder)
        switch policy.validate(settings) {
        case .success(let valid):
            return valid
        case .failure(let error):
            // Point at the key the complaint is about, or at the one that was set.
            let aboutReminder = error.message.hasPrefix("reminder")
            let preferred = aboutReminder ? reminderEntry : intervalEntry
            guard let entry = preferred ?? intervalEntry ?? reminderEntry else { return nil }
            var message = error.message
            if intervalEntry == nil {
                message += " (interval not set: the default \(DurationText.format(settings.interval)) applies)"
            } else if reminderEntry == nil {
                message += " (reminder not set: the default \(DurationText.format(settings.reminder)) applies)"
            }
            if policy == .standard, case .success = SettingsPolicy.developer.validate(settings) {
                message += "; second-scale settings need [developer] short_intervals = true"
            }
            report("check_in." + entry.key, at: entry.value, message)
            return nil
        }
    }
}
