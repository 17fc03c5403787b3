// swift-tools-version:6.1
// LifeSignal Device: a check-in button and status LEDs for people who live alone.
//
// Modules by responsibility (see docs/architecture.md):
//   pure logic        ComposableCore, CheckInModels, CheckInFeature, LEDLanguage, ConfigFile, DeviceConfig
//   client interfaces DeviceClock, GPIOClient, CheckInStoreClient, UplinkClient
//   live clients      DeviceClockLive, GPIOSimulated, CheckInStoreLive (over SQLiteDatabase/CSQLite),
//                     UplinkLive (over libcurl/CCurl, wire format in DeviceAPI)
//   daemon plumbing   ControlProtocol, ControlSocket, DeviceRuntime (the composition root), OperatorCLI
//   executables       lifesignald, lifesignalctl, lifesignal-devserver (reference backend, DevServer)
import PackageDescription

/// One set of Swift settings for every target, so the whole tree compiles under the same rules.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

extension Target {
    static func module(_ name: String, _ deps: [Target.Dependency] = []) -> Target {
        .target(name: name, dependencies: deps, swiftSettings: strictSettings)
    }
    static func tests(_ name: String, _ deps: [Target.Dependency]) -> Target {
        .testTarget(name: name, dependencies: deps, swiftSettings: strictSettings)
    }
}

let log: Target.Dependency = .product(name: "Logging", package: "swift-log")
let lifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let clocks: Target.Dependency = .product(name: "Clocks", package: "swift-clocks")
let customDump: Target.Dependency = .product(name: "CustomDump", package: "swift-custom-dump")
let concurrencyExtras: Target.Dependency = .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras")

let package = Package(
    name: "lifesignal-device",
    products: [
        .executable(name: "lifesignald", targets: ["lifesignald"]),
        .executable(name: "lifesignalctl", targets: ["lifesignalctl"]),
        .executable(name: "lifesignal-devserver", targets: ["lifesignal-devserver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Test-only: deterministic clocks, readable state diffs, serial executor for async tests.
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
        .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    ],
    targets: [
        // MARK: Pure logic (no I/O, no Foundation)
        .module("ComposableCore"),
        .module("ComposableTestSupport", ["ComposableCore", customDump]),
        .module("CheckInModels"),
        .module("DeviceClock", ["CheckInModels"]),
        .module("LEDLanguage"),
        .module("CheckInFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "CheckInStoreClient", "LEDLanguage"]),
        .module("ConfigFile"),
        .module("DeviceConfig", ["ConfigFile", "CheckInModels", "LEDLanguage"]),

        // MARK: Dependency client interfaces
        .module("GPIOClient"),
        .module("CheckInStoreClient", ["CheckInModels"]),
        .module("UplinkClient", ["CheckInModels"]),

        // MARK: Live implementations
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .module("SQLiteDatabase", ["CSQLite"]),
        .module("CheckInStoreLive", ["CheckInStoreClient", "CheckInModels", "SQLiteDatabase"]),
        // Linux-only C declarations (eventfd, accept4, struct ucred, adjtimex) that the Glibc module hides.
        .systemLibrary(name: "CLinuxSupport"),
        .module("DeviceClockLive", ["DeviceClock", "CheckInModels", "CLinuxSupport"]),
        .module("GPIOSimulated", ["GPIOClient"]),
        // Owned file descriptors, an eventfd wake-up and a dedicated pthread for poll loops.
        .module("LinuxIO", ["CLinuxSupport"]),
        .module("SimulatorTerminal", ["GPIOSimulated", "LinuxIO"]),
        // The device API's wire format (docs/device-api.yaml), shared by the device and the dev server.
        .module("DeviceAPI", ["CheckInModels"]),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .module("UplinkLive", ["UplinkClient", "DeviceAPI", "CheckInModels", "CCurl", "LinuxIO"]),

        // MARK: Daemon plumbing and executables
        .module("ControlProtocol", ["CheckInModels"]),
        .module("ControlSocket", ["LinuxIO"]),
        .module("DeviceRuntime", [
            "ComposableCore", "CheckInFeature", "CheckInModels", "DeviceClock", "DeviceClockLive",
            "GPIOClient", "GPIOSimulated", "CheckInStoreClient", "CheckInStoreLive", "LEDLanguage",
            "DeviceConfig", "ControlProtocol", "ControlSocket", "SimulatorTerminal", "LinuxIO", log, lifecycle,
            "UplinkClient", "UplinkLive",
        ]),
        .module("OperatorCLI", ["ControlProtocol", "ControlSocket", "CheckInModels", "DeviceConfig", "LinuxIO", argumentParser]),
        .executableTarget(name: "lifesignald", dependencies: ["DeviceRuntime", "LinuxIO", argumentParser], swiftSettings: strictSettings),
        .executableTarget(name: "lifesignalctl", dependencies: ["OperatorCLI"], swiftSettings: strictSettings),
        // The reference backend for development and tests (127.0.0.1 only): see docs/uplink.md.
        .module("DevServer", ["DeviceAPI", "CheckInModels", "SQLiteDatabase", "LinuxIO"]),
        .executableTarget(name: "lifesignal-devserver", dependencies: ["DevServer", "LinuxIO", argumentParser],
                          swiftSettings: strictSettings),

        // MARK: Tests
        .tests("ComposableCoreTests", ["ComposableCore", "ComposableTestSupport", clocks, concurrencyExtras]),
        .tests("CheckInFeatureTests", ["CheckInFeature", "ComposableTestSupport", clocks, concurrencyExtras]),
        .tests("LEDLanguageTests", ["LEDLanguage"]),
        .tests("GPIOTests", ["GPIOClient", "GPIOSimulated", "SimulatorTerminal"]),
        .tests("CheckInStoreLiveTests", ["CheckInStoreLive", "SQLiteDatabase"]),
        .tests("ConfigTests", ["ConfigFile", "DeviceConfig"]),
        .tests("ControlTests", ["ControlSocket"]),
        .tests("EndToEndTests", ["ControlProtocol", "DeviceAPI", "DevServer", "CheckInStoreLive", "CheckInModels"]),
        .tests("UplinkTests", ["UplinkClient", "UplinkLive", "DeviceAPI", "DevServer", "CheckInModels",
                               "CheckInStoreLive", "DeviceRuntime", "DeviceClock", "DeviceClockLive"]),
        .tests("ArchitectureTests", []),
    ]
)
