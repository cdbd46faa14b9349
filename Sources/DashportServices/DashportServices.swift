// DashportServices: placeholder until its issue lands.
enum DashportServicesModule {}
