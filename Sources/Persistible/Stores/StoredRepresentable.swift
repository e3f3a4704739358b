/// A domain value that a ``DomainStore`` keeps in its file as a separate, `Codable` representation.
///
/// The domain value can be whatever the app works with best (enums rather than strings, no optionals where there
/// is always a value) while the file holds a plain representation that changes only when the file format does.
/// Converting to the stored form always succeeds; converting back may not, for a record that this version does
/// not understand, and then the store skips the record.
///
/// A changed record keeps, as stored, what the conversion there and back does not keep; see
/// <doc:StoresAndQueries#Domain-values-and-their-stored-form>.
///
/// ```swift
/// struct User: Hashable, Identifiable, StoredRepresentable {
///     struct Stored: Codable, Hashable, Identifiable {
///         var id: String { username }
///         var username: String
///         var role: String
///     }
///
///     var username: String
///     var role: UserRole
///     var id: String { username }
///
///     var stored: Stored { Stored(username: username, role: role.rawValue) }
///
///     init?(stored: Stored) {
///         username = stored.username
///         role = UserRole(rawValue: stored.role) ?? .unknown
///     }
/// }
/// ```
public protocol StoredRepresentable: Hashable {
    /// The form the file holds.
    associatedtype Stored: Codable & Hashable

    /// The stored form of this value.
    var stored: Stored { get }

    /// The value a stored record holds, or `nil` if this version cannot make one from it.
    ///
    /// - Parameter stored: A record as decoded from the file.
    init?(stored: Stored)
}
