const char *vlib_tag(int i);
