import DeviceConfig
import XCTest

/// The one search for the configuration, as the daemon and the CLI both make it.
final class ConfigurationFileTests: XCTestCase {
    private let valid = Array("[store]\npath = \"/var/lib/x/s.sqlite\"\n".utf8)

    private func load(_ explicit: String?, _ environment: [String: String], files: [String: [UInt8]],
                      asTheServiceSeesIt: Bool = false) -> Result<ConfigurationFile.Loaded, ConfigurationFile.Failure> {
        ConfigurationFile.load(explicitPath: explicit, environment: environment, asTheServiceSeesIt: asTheServiceSeesIt) { path in
            files[path].map { .success($0) } ?? .failure(.missing)
        }
    }

    func testAnEmptyEnvironmentVariableCountsAsUnsetForEveryone() throws {
        let loaded = try load(nil, ["LIFESIGNAL_CONFIG": "", "HOME": "/home/ada"], files: [:]).get()
        XCTAssertNil(loaded.path, "the embedded defaults, not a file named \"\"")
    }

    func testTheFlagWinsOverTheEnvironmentWhichWinsOverTheSystemFile() throws {
        let files = ["/a.toml": valid, "/b.toml": valid, DeviceConfiguration.defaultConfigPath: valid]
        XCTAssertEqual(try load("/a.toml", ["LIFESIGNAL_CONFIG": "/b.toml"], files: files).get().path, "/a.toml")
        XCTAssertEqual(try load(nil, ["LIFESIGNAL_CONFIG": "/b.toml"], files: files).get().path, "/b.toml")
        XCTAssertEqual(try load(nil, [:], files: files).get().path, DeviceConfiguration.defaultConfigPath)
    }

    func testAFileThatWasAskedForMustExistButAMissingSystemFileMeansTheDefaults() {
        guard case let .failure(failure) = load("/missing.toml", [:], files: [:]) else { return XCTFail("a missing file was accepted") }
        XCTAssertEqual(failure.path, "/missing.toml")
        XCTAssertTrue(failure.message.contains("no such file"), failure.message)
        XCTAssertNil(try load(nil, ["HOME": "/home/ada"], files: [:]).get().path)
    }

    func testAnUnreadableFileSaysWhatToDoWhenPermissionIsDenied() {
        let result = ConfigurationFile.load(explicitPath: "/etc/x.toml", environment: [:]) { _ in
            .failure(.unreadable("Permission denied", permissionDenied: true))
        }
        guard case let .failure(failure) = result else { return XCTFail("an unreadable file was accepted") }
        XCTAssertTrue(failure.message.contains("member of group lifesignal"), failure.message)
    }

    func testTheCLISeesTheInstalledServicesPathsWhenItsFileIsInUse() throws {
        let files = [DeviceConfiguration.defaultConfigPath: Array("[log]\nlevel = \"info\"\n".utf8)]
        let asService = try load(nil, ["HOME": "/home/ada"], files: files, asTheServiceSeesIt: true).get().configuration
        XCTAssertTrue(asService.storePath.hasPrefix(ConfigurationFile.serviceStateDirectory), asService.storePath)
        XCTAssertTrue(asService.controlSocket.hasPrefix(ConfigurationFile.serviceRuntimeDirectory), asService.controlSocket)
        let asUser = try load(nil, ["HOME": "/home/ada"], files: files).get().configuration
        XCTAssertFalse(asUser.storePath.hasPrefix(ConfigurationFile.serviceStateDirectory), asUser.storePath)
    }
}
