// DashportTLS: placeholder until its issue lands.
enum DashportTLSModule {}
