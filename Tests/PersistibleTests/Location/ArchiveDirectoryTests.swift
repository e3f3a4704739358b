import Foundation
import Persistible
import Testing

/// The platform's directories for each kind of file, read in a child process so that its environment can be set.
@Suite struct ArchiveDirectoryTests {
    /// The directories the SettingsWriter child reports, by kind, with `environment` added to this process's.
    private func directories(_ environment: [String: String]) throws -> [String: String] {
        // Empty values count as unset, so that this process's own XDG variables do not leak in.
        let unset = ["XDG_DATA_HOME": "", "XDG_CONFIG_HOME": "", "XDG_CACHE_HOME": "", "PERSISTIBLE_DIRECTORY": ""]
        let result = try ChildProcess.run(
            "SettingsWriter", ["directories"], environment: unset.merging(environment) { $1 }
        )
        #expect(result.status == 0, "\(result.errors)")
        var directories: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { directories[parts[0]] = parts[1] }
        }
        return directories
    }

    #if os(Linux)
    @Test func eachKindFollowsItsXDGVariable() throws {
        let home = try TemporaryDirectory()
        let found = try directories([
            "HOME": home.path, "XDG_DATA_HOME": "/xdg/data", "XDG_CONFIG_HOME": "/xdg/config",
            "XDG_CACHE_HOME": "/xdg/cache",
        ])
        #expect(found["data"] == "/xdg/data/SettingsWriter")
        #expect(found["configuration"] == "/xdg/config/SettingsWriter")
        #expect(found["caches"] == "/xdg/cache/SettingsWriter")
        #expect(found["named-data"] == "/xdg/data/Named")
        #expect(found["named-configuration"] == "/xdg/config/Named")
        #expect(found["named-caches"] == "/xdg/cache/Named")
        #expect(found["default"] == "/xdg/data/SettingsWriter")
    }

    @Test func eachKindFallsBackToHomeWhenItsVariableIsUnsetOrRelative() throws {
        let home = try TemporaryDirectory()
        let found = try directories(["HOME": home.path, "XDG_CONFIG_HOME": "relative/config"])
        #expect(found["data"] == home.path + "/.local/share/SettingsWriter")
        #expect(found["configuration"] == home.path + "/.config/SettingsWriter")
        #expect(found["caches"] == home.path + "/.cache/SettingsWriter")
        #expect(found["named-configuration"] == home.path + "/.config/Named")
        #expect(found["default"] == home.path + "/.local/share/SettingsWriter")
        #expect(found["declared"] == home.path + "/.config/Named")
    }

    @Test func theEnvironmentVariableMovesOnlyTypesThatUseTheDefault() throws {
        let home = try TemporaryDirectory()
        let found = try directories([
            "HOME": home.path, "XDG_CONFIG_HOME": "/xdg/config", "PERSISTIBLE_DIRECTORY": "/persistible",
        ])
        #expect(found["default"] == "/persistible")
        #expect(found["declared"] == "/xdg/config/Named")
        #expect(found["data"] == home.path + "/.local/share/SettingsWriter")
    }
    #endif

    /// A type that keeps its settings in the configuration directory.
    struct Preferences: Codable, Hashable, Persistible {
        static var archiveDirectory: URL { ArchiveDirectory.configuration(application: "Preferences") }
    }

    @Test func aScopedDirectoryMovesOnlyTypesThatUseTheDefault() throws {
        let directory = try TemporaryDirectory()
        withArchiveDirectory(directory.url) {
            #expect(Note.archiveDirectory == directory.url)
            #expect(Preferences.archiveDirectory == ArchiveDirectory.configuration(application: "Preferences"))
            #expect(Preferences.archiveDirectory != directory.url)
        }
    }

    @Test func eachKindEndsWithTheApplicationsFolder() {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        #expect(ArchiveDirectory.data(application: "Named") == ArchiveDirectory.data())
        #else
        for directory in [ArchiveDirectory.data, ArchiveDirectory.configuration, ArchiveDirectory.caches] {
            #expect(directory("Named").lastPathComponent == "Named")
            #expect(directory(ArchiveDirectory.defaultApplication).lastPathComponent
                == ArchiveDirectory.defaultApplication)
        }
        #expect(Set([ArchiveDirectory.configuration(), ArchiveDirectory.caches()]).count == 2)
        #endif
    }
}
