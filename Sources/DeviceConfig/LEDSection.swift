import ConfigFile
import LEDLanguage

/// `[leds]`, `[leds.<name>]` and `[patterns.<indicator>]`: which LEDs exist, where they are wired,
/// and what each indicator shows. Checked so the LEDs cannot lie: every line has one role, every
/// pattern names only configured LEDs, every indicator but `starting` lights something, and no two
/// indicators look the same.
extension ConfigLoader {
    static let maxLEDs = 16

    /// Who uses a GPIO line, for "same line twice" messages.
    private struct LineUser {
        var key: String
        var line: GPIOLine
        /// The value's position when set in the file; nil for a default.
        var position: (line: Int, column: Int)?

        var reference: String {
            position.map { "\(key) (line \($0.line))" } ?? "\(key) (its default)"
        }
    }

    mutating func readLEDs(
        _ sections: Sections, buttonLine: GPIOLine, buttonEntry: ConfigEntry?
    ) -> ([LEDWiring]?, LEDLanguage?) {
        let orderEntry = sections.fixed["leds"]?["order"]
        guard let order = readOrder(orderEntry) else { return (nil, nil) }
        let names = order.map(\.name)

        for (name, table) in sections.leds.sorted(by: { $0.value.line < $1.value.line }) where !names.contains(name) {
            report(table.name, atTable: table, "there is no LED '\(name)' in leds.order (\(names.joined(separator: ", "))); "
                   + "add it to leds.order or remove this table" + Suggestion.hint(for: name, among: names))
        }

        var users = [LineUser(key: "button.line", line: buttonLine,
                              position: buttonEntry.map { ($0.value.line, $0.value.column) })]
        var wirings: [LEDWiring] = []
        var complete = true
        for (name, orderValue) in order {
            let table = sections.leds[name]
            let tableName = "leds." + name
            let colour = value(table, tableName, "colour", name,
                               ValueRules.text("a colour name for people, such as \"green\""))
            let activeLow = value(table, tableName, "active_low", false, ValueRules.bool)
            let lineEntry = table?["line"]
            let line: GPIOLine
            if lineEntry != nil {
                guard let configured = optionalValue(table, tableName, "line", ValueRules.gpioLine) else {
                    complete = false
                    continue
                }
                line = configured
            } else if let standard = LEDWiring.standardLines[name] {
                line = standard
            } else {
                let message = "LED '\(name)' has no default line: set line = \"GPIO<n>\" under [\(tableName)]"
                if let table {
                    report(tableName + ".line", atTable: table, message)
                } else {
                    report(tableName + ".line", line: orderValue?.line ?? 1, column: orderValue?.column ?? 1, message)
                }
                complete = false
                continue
            }
            let user = LineUser(key: tableName + ".line", line: line,
                                position: lineEntry.map { ($0.value.line, $0.value.column) })
            if let other = users.first(where: { $0.line == line }) {
                reportSharedLine(line, user, other, fallback: orderValue)
                complete = false
            }
            users.append(user)
            wirings.append(LEDWiring(led: LED(name: name, colour: colour), line: line, activeLow: activeLow))
        }

        let patterns = readPatterns(sections, names: names, orderEntry: orderEntry)
        guard complete, let patterns else { return (nil, nil) }
        return (wirings, LEDLanguage(leds: wirings.map(\.led), patterns: patterns))
    }

    private mutating func reportSharedLine(_ line: GPIOLine, _ user: LineUser, _ other: LineUser, fallback: ConfigValue?) {
        // Point at whichever of the two was written in the file, preferring the later one.
        let (here, there) = user.position != nil || other.position == nil ? (user, other) : (other, user)
        let position = here.position ?? fallback.map { ($0.line, $0.column) } ?? (1, 1)
        report(here.key, line: position.line, column: position.column,
               "line \(line) is also used by \(there.reference); each GPIO line may serve only one role "
                   + "(the button or one LED)")
    }

    /// `leds.order`: the LED names, with each name's position when written in the file.
    private mutating func readOrder(_ entry: ConfigEntry?) -> [(name: String, value: ConfigValue?)]? {
        guard let entry else { return LEDLanguage.standard.leds.map { ($0.name, nil) } }
        let example = "an array of LED names such as [\"green\", \"amber\", \"red\"]"
        guard let items = entry.value.arrayValue else {
            report("leds.order", at: entry.value, "expected \(example); found \(ValueRules.describe(entry.value))")
            return nil
        }
        guard (1...Self.maxLEDs).contains(items.count) else {
            report("leds.order", at: entry.value, "\(items.count) LEDs; expected 1 to \(Self.maxLEDs) LED names")
            return nil
        }
        var order: [(name: String, value: ConfigValue?)] = []
        var valid = true
        for item in items {
            guard let name = item.stringValue else {
                report("leds.order", at: item, "expected \(example); found \(ValueRules.describe(item))")
                valid = false
                continue
            }
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(isNameScalar) else {
                report("leds.order", at: item, "\"\(name)\" is not a usable LED name; use letters, digits, '_' and '-'")
                valid = false
                continue
            }
            guard !order.contains(where: { $0.name == name }) else {
                report("leds.order", at: item, "LED '\(name)' is listed twice; every LED appears once")
                valid = false
                continue
            }
            order.append((name, item))
        }
        return valid ? order : nil
    }

    /// Every indicator's pattern: the file's `[patterns.<indicator>]` (complete: LEDs it does not
    /// name stay off) or, when that table is absent or empty, the standard one. Nil when any is unusable.
    private mutating func readPatterns(
        _ sections: Sections, names: [String], orderEntry: ConfigEntry?
    ) -> [Indicator: LEDPattern]? {
        var patterns: [Indicator: LEDPattern] = [:]
        var complete = true
        var standardUsingMissing: [(indicator: Indicator, leds: [String])] = []
        for indicator in Indicator.allCases {
            // A header without keys (as in the commented example file) keeps the standard pattern.
            guard let table = sections.patterns[indicator], !table.entries.isEmpty else {
                let standard = LEDLanguage.standard.pattern(for: indicator)
                let missing = standard.waveforms.keys.filter { !names.contains($0) }.sorted()
                if indicator == .identify, !missing.isEmpty {
                    // Newer than many boards' configs: it runs along whatever LEDs there are.
                    patterns[indicator] = LEDLanguage.identifyPattern(over: names)
                    continue
                }
                if indicator.standIn != nil, !missing.isEmpty {
                    // Newer than many boards' configs too: shown as its stand-in is (below).
                    continue
                }
                if missing.isEmpty {
                    patterns[indicator] = standard
                } else {
                    standardUsingMissing.append((indicator, missing))
                }
                continue
            }
            if let pattern = readPattern(table, indicator: indicator, names: names) {
                patterns[indicator] = pattern
            } else {
                complete = false
            }
        }
        for indicator in Indicator.allCases where patterns[indicator] == nil {
            if let standIn = indicator.standIn, let pattern = patterns[standIn] { patterns[indicator] = pattern }
        }
        if !standardUsingMissing.isEmpty, let orderEntry {
            let list = standardUsingMissing.map { "\($0.indicator.rawValue) (uses \($0.leds.joined(separator: ", ")))" }
            report("leds.order", at: orderEntry.value,
                   "the standard patterns of " + list.joined(separator: ", ")
                       + " need LEDs that leds.order leaves out; add a [patterns.<indicator>] table for each, "
                       + "using only " + names.joined(separator: ", "))
            complete = false
        }
        guard complete else { return nil }
        return checkVisible(patterns, sections: sections, orderEntry: orderEntry) ? patterns : nil
    }

    private mutating func readPattern(_ table: ConfigTable, indicator: Indicator, names: [String]) -> LEDPattern? {
        var waveforms: [String: Waveform] = [:]
        var valid = true
        for entry in table.entries {
            let key = table.name + "." + ConfigTable.displayKey(entry.key)
            guard names.contains(entry.key) else {
                let removed = LEDLanguage.standard.leds.contains { $0.name == entry.key } ? " (leds.order leaves it out)" : ""
                report(key, atEntry: entry, "no LED named '\(entry.key)'\(removed); the LEDs are "
                       + names.joined(separator: ", ") + Suggestion.hint(for: entry.key, among: names))
                valid = false
                continue
            }
            guard let text = entry.value.stringValue else {
                report(key, at: entry.value, "expected a pattern in quotes such as \"on\", \"off\" or \"500ms on, 500ms off\"; "
                       + "found \(ValueRules.describe(entry.value))")
                valid = false
                continue
            }
            switch Waveform.parse(text) {
            case .success(let waveform):
                waveforms[entry.key] = waveform
            case .failure(let error):
                report(key, at: entry.value, error.message)
                valid = false
            }
        }
        return valid ? LEDPattern(waveforms) : nil
    }

    /// Every indicator but `starting` lights an LED, and no two look alike.
    private mutating func checkVisible(
        _ patterns: [Indicator: LEDPattern], sections: Sections, orderEntry: ConfigEntry?
    ) -> Bool {
        func position(_ indicator: Indicator) -> (line: Int, column: Int) {
            if let table = sections.patterns[indicator], !table.entries.isEmpty { return (table.line, table.column) }
            return orderEntry.map { ($0.value.line, $0.value.column) } ?? (1, 1)
        }
        // Indicators newer than a board's config, left to their standard pattern or stand-in, are not
        // held against its older patterns: a config that was valid stays valid (the standard table's
        // own indicators are told apart in LEDLanguageTests).
        let configured = { (indicator: Indicator) in sections.patterns[indicator]?.entries.isEmpty == false }
        let shown = Indicator.allCases.filter { indicator in
            indicator != .starting && (indicator.standIn == nil || configured(indicator))
        }
        var valid = true
        var seen: [(indicator: Indicator, visible: [String: Waveform])] = []
        for indicator in shown {
            let visible = (patterns[indicator]?.waveforms ?? [:]).filter { $0.value != .off }
            let (line, column) = position(indicator)
            if visible.isEmpty {
                report("patterns." + indicator.rawValue, line: line, column: column,
                       "this pattern lights no LED; every indicator except 'starting' must light at least one, "
                           + "or the device would look switched off")
                valid = false
            } else if let twin = seen.first(where: { $0.visible == visible }) {
                // Blame the configured one of the two.
                let configured = { (indicator: Indicator) in sections.patterns[indicator]?.entries.isEmpty == false }
                let blamed = configured(indicator) || !configured(twin.indicator)
                    ? (indicator, twin.indicator) : (twin.indicator, indicator)
                let at = position(blamed.0)
                report("patterns." + blamed.0.rawValue, line: at.line, column: at.column,
                       "looks exactly like patterns.\(blamed.1.rawValue); every indicator must look different, "
                           + "or a person could not tell them apart")
                valid = false
            }
            seen.append((indicator, visible))
        }
        return valid
    }
}

private func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
    default: false
    }
}
