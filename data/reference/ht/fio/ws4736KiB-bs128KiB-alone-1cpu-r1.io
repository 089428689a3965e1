rchar: 64823995358
wchar: 13667
syscr: 494787
syscw: 5
read_bytes: 122880
write_bytes: 8192
cancelled_write_bytes: 0
