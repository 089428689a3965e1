rchar: 22000401318
wchar: 13667
syscr: 5371385
syscw: 5
read_bytes: 4096
write_bytes: 12288
cancelled_write_bytes: 0
