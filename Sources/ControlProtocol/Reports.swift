public import CheckInModels

extension CheckInReport {
    public init(_ record: CheckInRecord) {
        let uploaded: Bool = if case .uploaded = record.upload { true } else { false }
        self.init(id: record.id.description, time: record.at.wall.iso8601,
                  wallClockSynchronized: record.at.wallClockSynchronized, source: record.source.rawValue,
                  uploaded: uploaded, bootID: record.at.bootID)
    }
}

extension SettingsReport {
    public init(_ settings: CheckInSettings, version: Int64) {
        self.init(interval: DurationText.format(settings.interval), reminder: DurationText.format(settings.reminder),
                  intervalSeconds: settings.interval.wholeSeconds, reminderSeconds: settings.reminder.wholeSeconds,
                  version: version,
                  offeredIntervals: SettingsPolicy.offeredIntervals.map(DurationText.format),
                  offeredReminders: SettingsPolicy.offeredReminders.map(DurationText.format))
    }
}
