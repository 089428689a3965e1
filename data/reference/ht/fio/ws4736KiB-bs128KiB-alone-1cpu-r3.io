rchar: 81475120090
wchar: 13666
syscr: 621824
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
