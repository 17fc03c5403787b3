// swift-tools-version:6.1
// LifeSignal Device: a check-in button and status LEDs for people who live alone.
//
// Modules by responsibility (see docs/architecture.md):
//   pure logic        ComposableCore, CheckInModels, CheckInFeature, NotificationsFeature, LEDLanguage, ConfigFile, DeviceConfig
//   client interfaces DeviceClock, GPIOClient, CheckInStoreClient, UplinkClient
//   live clients      DeviceClockLive, GPIOSimulated (+ SimulatorTerminal), CheckInStoreLive (over
//                     SQLiteDatabase/CSQLite), GPIOLibgpiod (over CGPIOD), UplinkLive (over libcurl/CCurl,
//                     wire format in DeviceAPI), LinuxIO (eventfd, poll threads; over CLinuxSupport)
//   daemon plumbing   ControlProtocol, ControlSocket, DeviceRuntime (the composition root), OperatorCLI
//   executables       lifesignald, lifesignalctl, lifesignal-devserver (reference backend, DevServer)
import PackageDescription

/// One set of Swift settings for every target, so the whole tree compiles under the same rules.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Swift 6.3's executor factory (`typealias DefaultExecutorFactory` on the `@main` type) is SPI
/// marked available from future Apple OS versions; without this flag the compiler silently ignores
/// the typealias. Allowed because this is the root package.
let customExecutorSettings: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-availability-checking"])]

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
        // For the fuzzing package in Fuzz/ (libFuzzer builds need a package of their own).
        .library(name: "ControlProtocol", targets: ["ControlProtocol"]),
        .library(name: "DeviceConfig", targets: ["DeviceConfig", "ConfigFile"]),
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
        .module("NotificationsFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "CheckInStoreClient", "UplinkClient"]),
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
        // Linux-only C declarations the Glibc module hides: eventfd, pthread_setname_np, adjtimex.
        .systemLibrary(name: "CLinuxSupport"),
        .module("DeviceClockLive", ["DeviceClock", "CheckInModels", "CLinuxSupport", "LinuxIO"]),
        .module("GPIOSimulated", ["GPIOClient"]),
        // SystemError (errno text), an eventfd wake-up and a dedicated pthread for poll loops.
        .module("LinuxIO", ["CLinuxSupport"]),
        .module("SimulatorTerminal", ["GPIOSimulated", "LinuxIO"]),
        // libgpiod 1.x or 2.x, whichever pkg-config finds; the shim hides the difference.
        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        .module("GPIOLibgpiod", ["GPIOClient", "CGPIOD", "LinuxIO", log]),
        // The libgpiod backend alone, run inside the HIL guest (hil/run): see docs/hil.md.
        .executableTarget(
            name: "lifesignal-gpio-probe", dependencies: ["GPIOLibgpiod", "GPIOClient", log],
            path: "hil/probe", swiftSettings: strictSettings),
        // The systemd notification protocol ($NOTIFY_SOCKET datagrams), without libsystemd.
        .module("SystemdNotify", ["LinuxIO"]),
        // One loop thread for every Swift job and timer, so an idle daemon does not wake (see
        // docs/architecture.md and BENCHMARKS.md). Uses Swift 6.3's experimental executor SPI.
        .systemLibrary(name: "CEventLoopSupport"),
        .target(name: "SingleThreadExecutor", dependencies: ["CEventLoopSupport", "LinuxIO"],
                swiftSettings: strictSettings + customExecutorSettings),
        // The device API's wire format (docs/device-api.yaml), shared by the device and the dev server.
        .module("DeviceAPI", ["CheckInModels"]),
        // curl.h only (libcurl4-openssl-dev): no pkgConfig, whose `--libs` would link libcurl.
        // UplinkLive's `LibCurl` dlopens it when the uplink is configured (BENCHMARKS.md: ~6.5 MiB).
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .module("UplinkLive", ["UplinkClient", "DeviceAPI", "CheckInModels", "CCurl", "LinuxIO"]),

        // MARK: Daemon plumbing and executables
        .module("ControlProtocol", ["CheckInModels"]),
        .module("ControlSocket", ["LinuxIO"]),
        .module("DeviceRuntime", [
            "ComposableCore", "CheckInFeature", "CheckInModels", "DeviceClock", "DeviceClockLive",
            "GPIOClient", "GPIOSimulated", "CheckInStoreClient", "CheckInStoreLive", "LEDLanguage",
            "DeviceConfig", "ControlProtocol", "ControlSocket", "SimulatorTerminal", "LinuxIO", "GPIOLibgpiod",
            "SystemdNotify", "UplinkClient", "UplinkLive", "NotificationsFeature", log, lifecycle,
        ]),
        .module("OperatorCLI", ["ControlProtocol", "ControlSocket", "CheckInModels", "DeviceConfig", "LinuxIO",
                                 "SQLiteDatabase", "CLinuxSupport", "UplinkClient", "UplinkLive", argumentParser]),
        .executableTarget(name: "lifesignald", dependencies: ["DeviceRuntime", "LinuxIO", "SingleThreadExecutor", argumentParser],
                          swiftSettings: strictSettings + customExecutorSettings),
        .executableTarget(name: "lifesignalctl", dependencies: ["OperatorCLI"], swiftSettings: strictSettings),
        // scripts/bench: drives the release daemon and measures latency, memory, wake-ups, writes.
        .executableTarget(name: "lifesignal-bench", dependencies: [
            "DeviceRuntime", "DeviceConfig", "DeviceClock", "DeviceClockLive", "GPIOSimulated", "ControlSocket",
            "ControlProtocol", "LinuxIO", "SingleThreadExecutor",
            // The backlog phase: a 100,000-row queue written straight into a store.
            "CheckInStoreLive", "CheckInModels", "SQLiteDatabase",
        ], swiftSettings: strictSettings + customExecutorSettings),
        // The reference backend for development and tests (127.0.0.1 only): see docs/uplink.md.
        .module("DevServer", ["DeviceAPI", "CheckInModels", "SQLiteDatabase", "LinuxIO"]),
        .executableTarget(name: "lifesignal-devserver", dependencies: ["DevServer", "LinuxIO", argumentParser],
                          swiftSettings: strictSettings),

        // MARK: Tests
        .tests("ComposableCoreTests", ["ComposableCore", "ComposableTestSupport", clocks, concurrencyExtras]),
        .tests("CheckInFeatureTests", ["CheckInFeature", "CheckInModels", "CheckInStoreClient", "DeviceClock", "ComposableTestSupport", clocks, concurrencyExtras]),
        .tests("NotificationsFeatureTests", ["NotificationsFeature", "CheckInModels", "CheckInStoreClient", "DeviceClock", "UplinkClient", "ComposableTestSupport", clocks, concurrencyExtras]),
        .tests("LEDLanguageTests", ["LEDLanguage"]),
        .tests("GPIOTests", ["GPIOClient", "GPIOSimulated", "SimulatorTerminal", "LinuxIO"]),
        .tests("GPIOLibgpiodTests", ["GPIOLibgpiod", "GPIOClient", log]),
        .tests("CheckInStoreLiveTests", ["CheckInStoreLive", "SQLiteDatabase"]),
        .tests("ConfigTests", ["ConfigFile", "DeviceConfig"]),
        .tests("ControlTests", ["ControlSocket", "LinuxIO"]),
        .tests("ControlProtocolTests", ["ControlProtocol", "CheckInModels"]),
        .tests("DeviceClockLiveTests", ["DeviceClockLive", "DeviceClock", "CheckInModels"]),
        .tests("EndToEndTests", ["ControlProtocol", "ControlSocket", "CheckInStoreLive", "CheckInStoreClient",
                                 "SQLiteDatabase", "DeviceAPI", "DevServer", "CheckInModels"]),
        .tests("UplinkTests", ["UplinkClient", "UplinkLive", "DeviceAPI", "DevServer", "CheckInModels",
                               "CheckInStoreLive", "DeviceRuntime", "DeviceClock", "DeviceClockLive", "NotificationsFeature",
                               "LinuxIO"]),
        .tests("ArchitectureTests", []),
        .tests("SystemdNotifyTests", ["SystemdNotify"]),
        .tests("DeviceRuntimeTests", ["DeviceRuntime", "GPIOClient", "GPIOSimulated", "DeviceConfig", "DeviceClock",
                                     "DeviceClockLive", "CheckInFeature", log]),
        .tests("OperatorCLITests", ["OperatorCLI", "SQLiteDatabase", "DevServer", "ControlProtocol", "DeviceConfig"]),
        .testTarget(name: "SingleThreadExecutorTests", dependencies: ["SingleThreadExecutor", "LinuxIO"],
                    swiftSettings: strictSettings + customExecutorSettings),
    ]
)
