import Foundation
import XCTest

/// The pure logic imports no I/O: no Foundation, no Glibc, no C module. A test, so that a
/// convenient import cannot slip in unnoticed.
final class PureModuleTests: XCTestCase {
    static let pureModules = ["ComposableCore", "Backoff", "CheckInModels", "CheckInFeature", "NotificationsFeature",
                              "UploadFeature", "HeartbeatFeature", "PingListenerFeature", "SettingsSyncFeature", "LEDLanguage",
                              "HealthchecksSyncFeature", "ConfigFile", "DeviceConfig", "DeviceClock", "GPIOClient", "CheckInStoreClient", "UplinkClient",
                              "MQTTClient", "MQTTFeature", "DependentsFeature", "DependentsClient", "RespondersFeature",
                              "RespondersClient", "JSONCoding"]
    static let allowedImports: Set<String> = [
        "Backoff",
        "ComposableCore", "CheckInModels", "CheckInFeature", "NotificationsFeature", "UploadFeature", "HeartbeatFeature",
        "PingListenerFeature", "SettingsSyncFeature", "HealthchecksSyncFeature", "LEDLanguage", "ConfigFile",
        "DeviceConfig", "DeviceClock", "GPIOClient", "CheckInStoreClient", "UplinkClient", "Synchronization",
        "MQTTClient", "MQTTFeature", "JSONCoding", "DependentsClient", "RespondersClient",
    ]

    func testPureModulesImportOnlyPureModules() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources").standardized
        var checked = 0
        for module in Self.pureModules {
            let folder = sources.appendingPathComponent(module)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            XCTAssertFalse(files.isEmpty, "\(module) has no sources")
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard let index = words.firstIndex(of: "import"), index <= 1 else { continue }
                    guard words.count > index + 1 else { continue }
                    let imported = String(words[index + 1])
                    XCTAssertTrue(Self.allowedImports.contains(imported),
                                  "\(module)/\(file) imports \(imported), which is not pure logic")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 10, "the scan found too few imports to be looking at the right files")
    }
}
