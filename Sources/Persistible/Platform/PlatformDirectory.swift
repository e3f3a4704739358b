#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The platform's directories for each kind of file, before an application's folder is added.
enum PlatformDirectory {
    enum Kind {
        case data, configuration, caches
    }

    /// The application's folder when none is named: the bundle identifier, else the executable's name.
    static var defaultApplication: String {
        #if canImport(Darwin)
        Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        #else
        // Linux gives an executable no bundle identifier.
        ProcessInfo.processInfo.processName
        #endif
    }

    static func url(for kind: Kind, application: String) -> URL {
        let fileManager = FileManager.default
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        // Every directory here is in the app's own container already, so no application folder is added; data
        // stays in Documents, where earlier versions of this code wrote, so that files saved by them are found.
        // tvOS lets an app write only to its caches, which the system may purge: every kind goes there.
        let search: FileManager.SearchPathDirectory
        #if os(tvOS)
        search = .cachesDirectory
        #else
        switch kind {
        case .data: search = .documentDirectory
        case .configuration: search = .applicationSupportDirectory
        case .caches: search = .cachesDirectory
        }
        #endif
        return fileManager.urls(for: search, in: .userDomainMask).first ?? fileManager.temporaryDirectory
        #elseif os(macOS)
        let (search, fallback): (FileManager.SearchPathDirectory, String)
        switch kind {
        case .data, .configuration: (search, fallback) = (.applicationSupportDirectory, "Library/Application Support")
        case .caches: (search, fallback) = (.cachesDirectory, "Library/Caches")
        }
        let root = fileManager.urls(for: search, in: .userDomainMask).first
            ?? fileManager.homeDirectoryForCurrentUser.appendingPathComponent(fallback)
        return root.appendingPathComponent(application, isDirectory: true)
        #else
        // The XDG base directories: FileManager's would give the data root shared by every program, and a home
        // read from the user database, not $HOME, which XDG tools honor.
        let (variable, fallback): (String, String)
        switch kind {
        case .data: (variable, fallback) = ("XDG_DATA_HOME", ".local/share")
        case .configuration: (variable, fallback) = ("XDG_CONFIG_HOME", ".config")
        case .caches: (variable, fallback) = ("XDG_CACHE_HOME", ".cache")
        }
        let home = absolutePath(inEnvironment: "HOME") ?? fileManager.homeDirectoryForCurrentUser.path
        let root = absolutePath(inEnvironment: variable) ?? Path.appending(fallback, to: home)
        return URL(fileURLWithPath: root, isDirectory: true).appendingPathComponent(application, isDirectory: true)
        #endif
    }

    /// The environment variable's value, if it is set to an absolute path; the XDG rule for every variable here.
    static func absolutePath(inEnvironment name: String) -> String? {
        guard let value = value(inEnvironment: name), value.hasPrefix("/") else { return nil }
        return value
    }

    /// The environment variable's value, read alone: `ProcessInfo` copies the whole environment first.
    static func value(inEnvironment name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
