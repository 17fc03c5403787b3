import CheckInModels
import ConfigFile
import LEDLanguage

/// `[check_in] schedule`, `windows`, `monday` … `sunday`, `time_zone`, `grace`; `[away]`;
/// `[quiet_hours]`; `[buzzer]`; `[power]` (docs/daily-life.md).
extension ConfigLoader {
    /// The longest last-chance grace: longer, and it is no longer a warning but a second deadline.
    static let graceRange = Duration.zero ... .seconds(2 * 3600)

    mutating func readDailyLife(_ sections: Sections, into configuration: inout DeviceConfiguration,
                                takenLines: [(key: String, line: GPIOLine)]) {
        let checkIn = sections.fixed["check_in"]
        configuration.grace = value(checkIn, "check_in", "grace", .seconds(15 * 60), ValueRules.duration(in: Self.graceRange))
        configuration.timeZone = optionalValue(checkIn, "check_in", "time_zone", Self.zoneName)
        if let entry = checkIn?["time_zone"] {
            configuration.timeZoneSource = .file(path: path, line: entry.value.line, column: entry.value.column)
        }
        configuration.schedule = readSchedule(checkIn, zone: configuration.timeZone)
        configuration.awayPressEnds = value(sections.fixed["away"], "away", "press_ends", true, ValueRules.bool)
        configuration.quietHours = readQuietHours(sections.fixed["quiet_hours"])
        var taken = takenLines
        configuration.buzzer = readBuzzer(sections.fixed["buzzer"], taken: &taken)
        configuration.power = readPower(sections.fixed["power"], taken: &taken)
        configuration.developerTrustWallClock = value(sections.fixed["developer"], "developer", "trust_wall_clock", false,
                                                      ValueRules.bool)
    }

    // MARK: Schedule

    private mutating func readSchedule(_ table: ConfigTable?, zone: String?) -> CheckInSchedule {
        enum Kind: String, CaseIterable { case interval, daily }
        let kind = value(table, "check_in", "schedule", .interval, ValueRules.choice(Kind.self))
        let dayKeys = Weekday.allCases.map(\.name)
        guard kind == .daily else {
            for key in ["windows"] + dayKeys {
                guard let entry = table?[key] else { continue }
                report("check_in." + key, atEntry: entry, "windows apply only with schedule = \"daily\" (now \"interval\")")
            }
            return .interval
        }
        guard let windowsEntry = table?["windows"] else {
            if let entry = table?["schedule"] {
                report("check_in.windows", atEntry: entry, "schedule = \"daily\" needs windows, e.g. windows = [\"07:00-10:00\"]")
            }
            return .interval
        }
        let windows = readWindows(windowsEntry, key: "check_in.windows", allowNone: false)
        // Every day is read, so one run of the check names every mistake.
        var overrides: [Weekday: [DailyWindow]] = [:]
        for weekday in Weekday.allCases {
            guard let entry = table?[weekday.name] else { continue }
            guard let days = readWindows(entry, key: "check_in." + weekday.name, allowNone: true) else { continue }
            overrides[weekday] = days
        }
        guard let windows else { return .interval }
        let schedule = DailySchedule(windows: windows, overrides: overrides, timeZone: zone)
        if !schedule.asksForCheckIns {
            report("check_in.windows", atEntry: windowsEntry, "every day of the week has no window: the device would never ask for a check-in")
        }
        return .daily(schedule)
    }

    /// An array of `"HH:MM-HH:MM"`: one to four (or none, for a weekday), in order, not overlapping.
    private mutating func readWindows(_ entry: ConfigEntry, key: String, allowNone: Bool) -> [DailyWindow]? {
        guard let values = entry.value.arrayValue else {
            report(key, at: entry.value, "expected an array of windows in quotes, e.g. [\"07:00-10:00\", \"18:00-20:00\"]; "
                   + "found \(ValueRules.describe(entry.value))")
            return nil
        }
        var windows: [DailyWindow] = []
        for value in values {
            guard let text = value.stringValue else {
                report(key, at: value, "expected a window in quotes such as \"07:00-10:00\"; found \(ValueRules.describe(value))")
                return nil
            }
            switch DailyWindow.parsing(text) {
            case let .success(window): windows.append(window)
            case let .failure(problem):
                report(key, at: value, problem.message)
                return nil
            }
        }
        switch DailySchedule.validate(windows, allowNone: allowNone) {
        case let .success(valid):
            return valid
        case let .failure(problem):
            report(key, at: entry.value, problem.message + (allowNone ? " ([] asks for no check-in that day)" : ""))
            return nil
        }
    }

    /// An IANA zone name as tzdata spells it (`Europe/London`, `UTC`): whether the system has it is
    /// checked where files can be read (`DeviceConfiguration.timeZoneProblem`).
    static func zoneName(_ value: ConfigValue) -> Result<String, Refusal> {
        let example = "an IANA time zone name such as \"Europe/London\" or \"America/New_York\""
        guard let text = value.stringValue else {
            return .failure(Refusal("expected \(example) in quotes; found \(ValueRules.describe(value))"))
        }
        let allowed = text.unicodeScalars.allSatisfy { scalar in
            let value = scalar.value  // a-z, A-Z, 0-9, / _ - +
            return (97...122).contains(value) || (65...90).contains(value) || (48...57).contains(value)
                || [47, 95, 45, 43].contains(value)
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !text.isEmpty, allowed, !text.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == ".." }) else {
            return .failure(Refusal("\(TerminalText.quoted(text)) is not a zone name; expected \(example) (leave the key out "
                                    + "for the system's zone)"))
        }
        return .success(text)
    }

    // MARK: Quiet hours

    private mutating func readQuietHours(_ table: ConfigTable?) -> QuietHours? {
        let from = optionalValue(table, "quiet_hours", "from", Self.clockTime)
        let to = optionalValue(table, "quiet_hours", "to", Self.clockTime)
        switch (table?["from"], table?["to"]) {
        case (nil, nil):
            return nil
        case (let entry?, nil), (nil, let entry?):
            report("quiet_hours." + (entry.key == "from" ? "to" : "from"), atEntry: entry,
                   "quiet hours need both from and to, e.g. from = \"22:00\", to = \"07:00\"")
            return nil
        case (_, let toEntry?):
            guard let from, let to else { return nil }
            guard from != to else {
                report("quiet_hours.to", atEntry: toEntry, "from and to are both \(from): leave both out for no quiet hours")
                return nil
            }
            return QuietHours(from: from, to: to)
        }
    }

    static func clockTime(_ value: ConfigValue) -> Result<ClockTime, Refusal> {
        guard let text = value.stringValue else {
            return .failure(Refusal("expected a time of day in quotes such as \"22:00\"; found \(ValueRules.describe(value))"))
        }
        return ClockTime.parsing(Substring(text)).mapError { Refusal($0.message) }.flatMap { time in
            time.minuteOfDay < 1440 ? .success(time) : .failure(Refusal("24:00 is the end of the day; write 00:00"))
        }
    }

    // MARK: Buzzer and power

    private mutating func readBuzzer(_ table: ConfigTable?, taken: inout [(key: String, line: GPIOLine)]) -> BuzzerConfiguration? {
        let patternKeys = BuzzerSignal.allCases.map(\.rawValue)
        guard let lineEntry = table?["line"] else {
            for key in ["active_low"] + patternKeys {
                guard let entry = table?[key] else { continue }
                report("buzzer." + key, atEntry: entry, "no [buzzer] line is set: set line = \"GPIO<n>\" or remove this key")
            }
            return nil
        }
        guard let line = optionalValue(table, "buzzer", "line", ValueRules.gpioLine) else { return nil }
        checkLine(line, key: "buzzer.line", entry: lineEntry, taken: &taken)
        var patterns = BuzzerConfiguration.standardPatterns
        for signal in BuzzerSignal.allCases {
            if let waveform = optionalValue(table, "buzzer", signal.rawValue, Self.waveform) { patterns[signal] = waveform }
        }
        return BuzzerConfiguration(line: line, activeLow: value(table, "buzzer", "active_low", false, ValueRules.bool), patterns: patterns)
    }

    static func waveform(_ value: ConfigValue) -> Result<Waveform, Refusal> {
        guard let text = value.stringValue else {
            return .failure(Refusal("expected a pattern in quotes such as \"500ms on, 29500ms off\" or \"off\"; found "
                                    + ValueRules.describe(value)))
        }
        return Waveform.parse(text).mapError { Refusal($0.message) }
    }

    private mutating func readPower(_ table: ConfigTable?, taken: inout [(key: String, line: GPIOLine)]) -> PowerConfiguration {
        var power = PowerConfiguration()
        for (name, activeLowKey) in [("mains_line", "mains_active_low"), ("low_battery_line", "low_battery_active_low")] {
            guard let entry = table?[name] else {
                if let orphan = table?[activeLowKey] {
                    report("power." + activeLowKey, atEntry: orphan, "\(name) is not set: set it or remove this key")
                }
                continue
            }
            guard let line = optionalValue(table, "power", name, ValueRules.gpioLine) else { continue }
            checkLine(line, key: "power." + name, entry: entry, taken: &taken)
            let activeLow = value(table, "power", activeLowKey, false, ValueRules.bool)
            if name == "mains_line" {
                power.mainsLine = line
                power.mainsActiveLow = activeLow
            } else {
                power.lowBatteryLine = line
                power.lowBatteryActiveLow = activeLow
            }
        }
        return power
    }

    /// One role per line: the button, the LEDs, the buzzer and the inputs each have their own.
    private mutating func checkLine(_ line: GPIOLine, key: String, entry: ConfigEntry, taken: inout [(key: String, line: GPIOLine)]) {
        if let other = taken.first(where: { $0.line == line }) {
            report(key, at: entry.value, "\(line) is already \(other.key); give every LED, the button, the buzzer and each "
                   + "input its own line")
        }
        taken.append((key, line))
    }
}

extension DeviceConfiguration {
    /// The configured zone when the system's tzdata does not have it, as a problem at its key;
    /// `exists` looks in the zone files (the loader itself reads no files).
    public func timeZoneProblem(exists: (String) -> Bool) -> ConfigProblem? {
        guard let zone = timeZone, !exists(zone) else { return nil }
        return ConfigProblem(
            source: timeZoneSource ?? .environment(variable: "TZ"), key: "check_in.time_zone",
            message: "\(TerminalText.quoted(zone)) is not a time zone this system knows (no such file under /usr/share/zoneinfo); "
                + "use a name from `timedatectl list-timezones`, or install the tzdata package")
    }
}
