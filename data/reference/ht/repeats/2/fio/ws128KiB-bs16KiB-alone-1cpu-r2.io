rchar: 52894297039
wchar: 13665
syscr: 3228624
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
