rchar: 22576446372
wchar: 13667
syscr: 5512021
syscw: 5
read_bytes: 475136
write_bytes: 8192
cancelled_write_bytes: 0
