/// The version Dashport reports to cars (in the media channel's SERVER_HELLO).
public enum DashportVersion {
    public static let current = "0.1.0"
}
