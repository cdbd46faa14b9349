// DashportTransport: placeholder until its issue lands.
enum DashportTransportModule {}
