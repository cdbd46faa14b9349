// DashportFrames: placeholder until its issue lands.
enum DashportFramesModule {}
