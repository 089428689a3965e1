rchar: 17449319364
wchar: 13662
syscr: 4260280
syscw: 5
read_bytes: 200704
write_bytes: 12288
cancelled_write_bytes: 0
