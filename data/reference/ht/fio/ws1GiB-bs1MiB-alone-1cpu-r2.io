rchar: 12003159125
wchar: 13652
syscr: 11687
syscw: 5
read_bytes: 405504
write_bytes: 12288
cancelled_write_bytes: 0
