rchar: 40190192733
wchar: 13662
syscr: 2453248
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
