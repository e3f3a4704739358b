import Foundation

/// The platform's directories for each kind of file a program keeps, for a type to return from
/// ``Persistible/archiveDirectory``.
///
/// A type that does not declare its directory keeps its file with the program's data, in ``data(application:)``.
/// Settings belong in ``configuration(application:)``, and files that can be made again in
/// ``caches(application:)``:
///
/// ```swift
/// struct Settings: Codable, Hashable, Persistible {
///     var theme = "light"
///     var fontSize = 12
///
///     static var archiveDirectory: URL { ArchiveDirectory.configuration(application: "com.example.notes") }
/// }
/// ```
///
/// | Kind            | Linux and others                                  | macOS                                      | iOS, tvOS, watchOS, visionOS |
/// |-----------------|---------------------------------------------------|--------------------------------------------|------------------------------|
/// | data            | `$XDG_DATA_HOME/<app>`, else `~/.local/share/<app>` | `~/Library/Application Support/<app>`      | `Documents`                  |
/// | configuration   | `$XDG_CONFIG_HOME/<app>`, else `~/.config/<app>`    | `~/Library/Application Support/<app>`      | `Library/Application Support` |
/// | caches          | `$XDG_CACHE_HOME/<app>`, else `~/.cache/<app>`      | `~/Library/Caches/<app>`                   | `Library/Caches`             |
///
/// On Linux an `XDG_*` variable counts only when it holds an absolute path, and `~` is `$HOME` when that is
/// absolute; both are read on every call. On iOS, tvOS, watchOS and visionOS each directory is in the app's own
/// container, so no application folder is added there and `application` is not used.
///
/// A type that returns one of these keeps it: ``withArchiveDirectory(_:operation:)`` and `PERSISTIBLE_DIRECTORY`
/// choose the directory only of types that use the default.
public enum ArchiveDirectory {
    /// The name of the program's folder when none is given: its bundle identifier, else its executable's name.
    ///
    /// On Linux this is the executable's name, so a renamed binary looks in another folder: name the folder
    /// instead.
    ///
    /// ```swift
    /// print(ArchiveDirectory.defaultApplication) // "notes", for an executable named notes
    /// static var archiveDirectory: URL { ArchiveDirectory.configuration(application: "notes") }
    /// ```
    public static var defaultApplication: String {
        PlatformDirectory.defaultApplication
    }

    /// The directory for the program's own data: where files go when a type does not say.
    ///
    /// ```swift
    /// static var archiveDirectory: URL { ArchiveDirectory.data(application: "notes") }
    /// ```
    ///
    /// - Parameter application: The name of the program's folder; by default its bundle identifier, else its
    ///   executable's name. Name it to keep the files where they are when the executable is renamed. A name with
    ///   `/` names nested folders.
    /// - Returns: The directory, which the first save creates.
    public static func data(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .data, application: application)
    }

    /// The directory for the program's settings: `~/.config/<application>` on Linux.
    ///
    /// ```swift
    /// static var archiveDirectory: URL { ArchiveDirectory.configuration(application: "notes") }
    /// ```
    ///
    /// - Parameter application: The name of the program's folder; by default its bundle identifier, else its
    ///   executable's name.
    /// - Returns: The directory, which the first save creates.
    public static func configuration(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .configuration, application: application)
    }

    /// The directory for files that the program can make again, which the system or the user may delete.
    ///
    /// ```swift
    /// static var archiveDirectory: URL { ArchiveDirectory.caches(application: "notes") }
    /// ```
    ///
    /// - Parameter application: The name of the program's folder; by default its bundle identifier, else its
    ///   executable's name.
    /// - Returns: The directory, which the first save creates.
    public static func caches(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .caches, application: application)
    }
}
