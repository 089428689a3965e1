rchar: 21538298826
wchar: 13662
syscr: 5258566
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
