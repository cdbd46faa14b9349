// DashportSession: placeholder until its issue lands.
enum DashportSessionModule {}
