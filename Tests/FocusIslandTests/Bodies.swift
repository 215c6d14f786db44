// Bodies: the API's small JSON shapes (each written at the sql/api function that builds it) as
// Decodable values, so a test decodes an answer once and compares whole values with == instead
// of chains of casts.
// Each type names only the members tests look at; snake_case keys map to camelCase.
import Foundation

extension HTTPResult {
    /// The body decoded as `T`; a body that does not fit throws with the body in the message.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(T.self, from: Data(body))
        } catch {
            throw HTTPClientError(description: "\(status) \(text) is not a \(T.self): \(error)")
        }
    }
}

/// Register and login: {user: Profile, token, expires_at}.
struct AuthReply: Decodable {
    let user: Profile
    let token: String
}

/// Profile = {id, email, display_name, balance, selected, settings, created_at, guest, ...}; a
/// guest's email is null.
struct Profile: Decodable, Equatable {
    let id: String
    let email: String?
    let displayName: String
    let balance: Int
    let selected: Selected
    let settings: Settings
}

struct Settings: Decodable, Equatable {
    let showTipOnTimer: Bool
}

/// {pet, sound, furniture}: the item chosen of each kind, if any.
struct Selected: Decodable, Equatable {
    let pet: Item?
    let sound: Item?
    let furniture: Item?
}

struct Item: Decodable, Equatable {
    let id: String
    let kind: String
    let name: String
}

/// GET /me/items: {items: [{item, acquired_at}]}.
struct Inventory: Decodable {
    struct Owned: Decodable { let item: Item }
    let items: [Owned]
}

/// Both sync routes: {missing: [Item or Tip], removed: [uuid]}; only the ids are compared.
struct SyncReply: Decodable {
    struct Identified: Decodable { let id: String }
    let missing: [Identified]
    let removed: [String]
}

/// Session = {id, started_at, ended_at, minutes, coins_earned, rating}.
struct Session: Decodable, Hashable {
    let id: String
    let minutes: Int?
    let coinsEarned: Int
    let rating: String?
}

/// Finish and record: {session, balance}.
struct SessionReply: Decodable, Hashable {
    let session: Session
    let balance: Int
}

/// Rating: {session, tip}.
struct RatingReply: Decodable {
    let session: Session
    let tip: Tip?
}

struct Tip: Decodable {
    let id: String
    let ratingLevel: String
}

/// GET /me/stats, the whole object.
struct Stats: Decodable, Equatable {
    let todayMinutes: Int
    let weekMinutes: Int
    let totalMinutes: Int
    let totalCoinsEarned: Int
    let currentStreakDays: Int
    let longestStreakDays: Int
}

/// UserCard = {id, display_name, has_avatar}, the whole object.
struct UserCard: Decodable, Equatable {
    let id: String
    let displayName: String
    let hasAvatar: Bool
}

/// Friend = UserCard + {selected, befriended_at, today_minutes}.
struct Friend: Decodable, Equatable {
    let id: String
    let displayName: String
    let selected: Selected
    let todayMinutes: Int
}

/// GET /friends: {friends: [Friend]}.
struct Friends: Decodable {
    let friends: [Friend]
}

/// GET /friend-requests: {incoming: [{id, from, created_at}], outgoing: [{id, to, created_at}]}.
struct FriendRequests: Decodable, Equatable {
    struct Incoming: Decodable, Equatable {
        let id: String
        let from: UserCard
    }
    struct Outgoing: Decodable, Equatable {
        let id: String
        let to: UserCard
    }
    let incoming: [Incoming]
    let outgoing: [Outgoing]
}

/// POST /friend-requests, 201: {request: {id, ...}}.
struct AskReply: Decodable {
    struct Request: Decodable { let id: String }
    let request: Request
}

/// POST /friend-requests/{id}/accept: {friend}.
struct AcceptReply: Decodable {
    let friend: Friend
}

/// GET /leaderboards/{period}, the whole object.
struct Leaderboard: Decodable, Equatable {
    struct Entry: Decodable, Equatable {
        let rank: Int
        let user: UserCard
        let minutes: Int
    }
    struct Standing: Decodable, Equatable {
        let rank: Int
        let minutes: Int
    }
    let periodStart: String
    let entries: [Entry]
    let me: Standing
}
