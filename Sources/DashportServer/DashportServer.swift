// DashportServer: placeholder until its issue lands.
enum DashportServerModule {}
