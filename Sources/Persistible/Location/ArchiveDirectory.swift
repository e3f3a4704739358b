import Foundation

/// The platform's directories for each kind of file a program keeps, for a type to return from
/// ``Persistible/archiveDirectory``.
///
/// ```swift
/// static var archiveDirectory: URL { ArchiveDirectory.configuration(application: "com.example.notes") }
/// ```
///
/// | Kind | Linux and others | macOS | iOS, watchOS, visionOS |
/// |---|---|---|---|
/// | data | `$XDG_DATA_HOME/<app>` | `~/Library/Application Support/<app>` | `Documents` |
/// | configuration | `$XDG_CONFIG_HOME/<app>` | `~/Library/Application Support/<app>` | `Library/Application Support` |
/// | caches | `$XDG_CACHE_HOME/<app>` | `~/Library/Caches/<app>` | `Library/Caches` |
///
/// On tvOS every kind is `Library/Caches`, the one directory tvOS lets an app write: the system may delete its
/// files when the app is not running and storage runs low, so keep there only what the app can make again or fetch.
///
/// On Linux an `XDG_*` variable counts only when it holds an absolute path, else the directory is in
/// `~/.local/share`, `~/.config` or `~/.cache`, where `~` is `$HOME` when that is absolute; both are read on every
/// call. On iOS, tvOS, watchOS and visionOS each directory is in the app's own container, so `application` is not
/// used.
public enum ArchiveDirectory {
    /// The name of the program's folder when none is given: its bundle identifier, else its executable's name.
    ///
    /// On Linux this is the executable's name, so a renamed binary looks in another folder: name the folder
    /// instead, for example `ArchiveDirectory.configuration(application: "notes")`.
    public static var defaultApplication: String {
        PlatformDirectory.defaultApplication
    }

    /// The directory for the program's own data: where files go when a type does not say.
    ///
    /// - Parameter application: The name of the program's folder, by default ``defaultApplication``; a name with `/`
    ///   names nested folders.
    public static func data(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .data, application: application)
    }

    /// The directory for the program's settings.
    ///
    /// - Parameter application: The name of the program's folder, by default ``defaultApplication``.
    public static func configuration(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .configuration, application: application)
    }

    /// The directory for files that the program can make again, which the system or the user may delete.
    ///
    /// - Parameter application: The name of the program's folder, by default ``defaultApplication``.
    public static func caches(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .caches, application: application)
    }
}
