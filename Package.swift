// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Persistible",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Persistible", targets: ["Persistible"]),
        .executable(name: "PersonDemo", targets: ["PersonDemo"]),
        .executable(name: "PersistibleBenchmarks", targets: ["PersistibleBenchmarks"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "Persistible"),
        .testTarget(
            name: "PersistibleTests",
            // The executables are dependencies so that they are built next to the test binary,
            // where the process tests start them.
            dependencies: [
                "Persistible", "PersonDemo", "StressWriter", "SettingsWriter", "PersistibleProbe", "VersionedWriter",
                "ChangeWriter", "PersistibleEssentialsTool",
            ],
            // Files earlier versions wrote, read by path: they are evidence, not resources to ship.
            exclude: ["Fixtures"]
        ),
        // A child process for the crash, contention and failed-write tests.
        .executableTarget(name: "StressWriter", dependencies: ["Persistible"], path: "Tests/StressWriter"),
        // A child process for the update contention and directory tests.
        .executableTarget(name: "SettingsWriter", dependencies: ["Persistible"], path: "Tests/SettingsWriter"),
        // A child process for the tests of special files, other users' permissions and injected faults.
        .executableTarget(name: "PersistibleProbe", dependencies: ["Persistible"], path: "Tests/Probe"),
        // Two versions of one model writing the same file, for the model evolution tests.
        .executableTarget(name: "VersionedWriter", dependencies: ["Persistible"], path: "Tests/VersionedWriter"),
        // A tool on the package and FoundationEssentials alone, to show which libraries its process maps.
        .executableTarget(
            name: "PersistibleEssentialsTool", dependencies: ["Persistible"], path: "Tests/EssentialsTool"
        ),
        // A child process that changes a file in every way the watching tests must see.
        .executableTarget(name: "ChangeWriter", dependencies: ["Persistible"], path: "Tests/ChangeWriter"),

        // Examples
        .executableTarget(name: "PersonDemo", dependencies: ["Persistible"], path: "Examples/PersonDemo"),

        // Benchmarks
        .executableTarget(
            name: "PersistibleBenchmarks",
            // The programs its command-line section starts, one process a call, built beside it.
            dependencies: ["Persistible", "PersistibleColdTool", "ColdFoundationReader", "ColdEssentialsHello"],
            path: "Benchmarks/PersistibleBenchmarks"
        ),
        .executableTarget(
            name: "PersistibleColdTool", dependencies: ["Persistible"], path: "Benchmarks/PersistibleColdTool"
        ),
        .executableTarget(name: "ColdFoundationReader", path: "Benchmarks/ColdFoundationReader"),
        .executableTarget(name: "ColdEssentialsHello", path: "Benchmarks/ColdEssentialsHello"),
    ],
    swiftLanguageModes: [.v6]
)
