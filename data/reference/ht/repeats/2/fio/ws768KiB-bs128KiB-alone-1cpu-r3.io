rchar: 101719714809
wchar: 13667
syscr: 776280
syscw: 5
read_bytes: 1359872
write_bytes: 12288
cancelled_write_bytes: 0
