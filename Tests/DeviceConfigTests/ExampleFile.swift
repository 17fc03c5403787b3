import Foundation

/// The shipped example config, read from the package (tests only: the modules stay free of I/O).
enum ExampleFile {
    /// `Tests/DeviceConfigTests/ExampleFile.swift` → package root → `deploy/lifesignald.toml`.
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/lifesignald.toml")

    static func text() throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }
}
