rchar: 92151589842
wchar: 13667
syscr: 703279
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
